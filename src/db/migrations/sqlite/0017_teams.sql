-- Teams (reference §3): a company's groups of workers, with team admins and vehicles. Members are
-- employments (employments.team_id). Kept in lock-step with ../postgres/0017_teams.sql.

-- Team ids are random 9-digit integers, as in the reference service.
CREATE TABLE teams (
    id BIGINT PRIMARY KEY,
    company_id BIGINT NOT NULL REFERENCES companies (id),
    name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
    creation_time BIGINT NOT NULL
);
CREATE INDEX teams_company ON teams (company_id);

-- The company admins who manage a team.
CREATE TABLE team_admin_users (
    team_id BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id),
    PRIMARY KEY (team_id, user_id)
);
CREATE INDEX team_admin_users_user ON team_admin_users (user_id);

-- The vehicles a team uses.
CREATE TABLE team_vehicles (
    team_id BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    vehicle_id BIGINT NOT NULL REFERENCES vehicles (id),
    PRIMARY KEY (team_id, vehicle_id)
);

ALTER TABLE employments ADD COLUMN team_id BIGINT REFERENCES teams (id);
CREATE INDEX employments_team ON employments (team_id);
