// A small third-party client of Roadlog in TypeScript, written against the types generated from
// the contract a server serves: src/generated/roadlog.ts (graphql-codegen, from /schema.graphql and
// the operations below) and src/generated/rest.ts (openapi-typescript, from /openapi.yaml). It is
// only compiled (`tsc --noEmit --strict`): the `@ts-expect-error` lines prove that the scalars
// and bodies are typed precisely, since each would compile, and so fail the check, if its type
// were `any`, `unknown` or a plain `string`.

import type {
  LogActivityMutation,
  LogActivityMutationVariables,
  MyMissionsQuery,
  MyMissionsQueryVariables,
  Scalars,
} from "./generated/roadlog.js";
import type { components, paths } from "./generated/rest.js";

const MY_MISSIONS = /* GraphQL */ `
  query MyMissions($first: Int) {
    me {
      id
      firstName
      lastName
      creationTime
      missions(first: $first) {
        edges {
          node {
            id
            name
            companyId
            receptionTime
            context
            activities {
              id
              type
              startTime
              endTime
            }
          }
        }
      }
      adminedCompanies {
        id
        name
      }
    }
  }
`;

const LOG_ACTIVITY = /* GraphQL */ `
  mutation LogActivity($missionId: Int!, $type: ActivityTypeEnum!, $startTime: TimeStamp!, $endTime: TimeStamp) {
    activities {
      logActivity(missionId: $missionId, type: $type, startTime: $startTime, endTime: $endTime, switch: false) {
        id
        type
        startTime
        endTime
      }
    }
  }
`;

interface GraphQLError {
  message: string;
  extensions?: { code?: string };
}

interface GraphQLAnswer<T> {
  data?: T | null;
  errors?: GraphQLError[];
}

/** One GraphQL operation with a bearer token; errors become exceptions. */
async function graphql<T, V>(server: string, token: string, query: string, variables: V): Promise<T> {
  const response = await fetch(`${server}/api/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const answer = (await response.json()) as GraphQLAnswer<T>;
  if (answer.errors?.length) {
    throw new Error(answer.errors.map((e) => `${e.extensions?.code ?? "ERROR"}: ${e.message}`).join("; "));
  }
  if (answer.data == null) {
    throw new Error(`no data (HTTP ${response.status})`);
  }
  return answer.data;
}

/** Unix seconds of the API to a JavaScript date: compiles only because TimeStamp is a number. */
function toDate(seconds: Scalars["TimeStamp"]["output"]): Date {
  return new Date(seconds * 1000);
}

/** The user's recent missions, each with its activities, as lines of text. */
export async function describeMissions(server: string, token: string): Promise<string[]> {
  const variables: MyMissionsQueryVariables = { first: 20 };
  const data = await graphql<MyMissionsQuery, MyMissionsQueryVariables>(server, token, MY_MISSIONS, variables);
  const me = data.me;
  if (!me) {
    return [];
  }
  const lines = [`${me.firstName} ${me.lastName} (#${me.id})`];
  for (const edge of me.missions?.edges ?? []) {
    const mission = edge?.node;
    if (!mission) continue;
    lines.push(`mission ${mission.id} ${mission.name ?? ""} received ${toDate(mission.receptionTime).toISOString()}`);
    for (const activity of mission.activities ?? []) {
      if (!activity) continue;
      const kind: "drive" | "work" | "support" | "transfer" | "off" = activity.type;
      const end = activity.endTime == null ? "running" : toDate(activity.endTime).toISOString();
      lines.push(`  ${kind} ${toDate(activity.startTime).toISOString()} → ${end}`);
    }
  }
  return lines;
}

/** Logs an hour of driving. */
export async function logDrive(server: string, token: string, missionId: number, start: Date): Promise<number> {
  const startTime = Math.floor(start.getTime() / 1000);
  const variables: LogActivityMutationVariables = { missionId, type: "drive", startTime, endTime: startTime + 3600 };
  // @ts-expect-error: "sleep" is no ActivityTypeEnum value.
  const wrong: LogActivityMutationVariables = { missionId, type: "sleep", startTime };
  void wrong;
  const data = await graphql<LogActivityMutation, LogActivityMutationVariables>(server, token, LOG_ACTIVITY, variables);
  const logged = data.activities?.logActivity;
  if (!logged) {
    throw new Error("logActivity returned nothing");
  }
  return logged.id;
}

type ExportRequest = components["schemas"]["TachographExportRequest"];
type ApiError = components["schemas"]["ApiError"];
type Health = paths["/health"]["get"]["responses"][200]["content"]["application/json"];

/** The signed C1B export of companies, as a ZIP in memory. */
export async function exportCompanies(server: string, token: string, companyIds: number[]): Promise<ArrayBuffer> {
  const body: ExportRequest = { company_ids: companyIds, with_digital_signatures: true };
  // @ts-expect-error: company ids are numbers.
  const wrong: ExportRequest = { company_ids: ["1"] };
  void wrong;
  const response = await fetch(`${server}/api/companies/generate_tachograph_files`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const error = (await response.json()) as ApiError;
    throw new Error(`${error.error_code}: ${error.error}`);
  }
  return response.arrayBuffer();
}

/** Whether the server is up, and its environment. */
export async function health(server: string): Promise<string> {
  const answer = (await (await fetch(`${server}/health`)).json()) as Health;
  return `${answer.status} (${answer.environment})`;
}
