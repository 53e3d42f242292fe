// Roadlog's API console: GraphiQL 3 (vendored, see README.md beside this file) on this
// server's GraphQL endpoint. Written for browsers as they are (no build step); it reads its
// settings from the page's #graphiql element and talks to this origin only.
//
// The fetcher follows the interface contract: a 400 answer (syntax, validation or limit error,
// nothing executed) is shown wrapped in an extra `error` field; the access-token field of the
// banner is sent as `Authorization: Bearer …` unless the Headers editor sets Authorization.
(function () {
  'use strict';

  var root = document.getElementById('graphiql');
  var endpoint = root.getAttribute('data-endpoint');
  var environment = root.getAttribute('data-environment');
  var tokenField = document.getElementById('roadlog-token');

  function requestHeaders(edited) {
    var headers = new Headers({
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json, application/json;q=0.9',
    });
    var token = tokenField.value.trim().replace(/^Bearer\s+/i, '');
    if (token) headers.set('Authorization', 'Bearer ' + token);
    // The Headers editor has the last word (names compare without case).
    Object.keys(edited || {}).forEach(function (name) {
      headers.set(name, String(edited[name]));
    });
    return headers;
  }

  async function fetcher(params, options) {
    var response = await fetch(endpoint, {
      method: 'POST',
      headers: requestHeaders(options && options.headers),
      body: JSON.stringify(params),
      credentials: 'omit',
    });
    var text = await response.text();
    var body;
    try {
      body = JSON.parse(text);
    } catch (notJson) {
      body = { status: response.status, body: text };
    }
    if (response.status === 400) return { error: body };
    return body;
  }

  // The first document: what needs no token, then how to get one and use it.
  var sandbox = environment === 'sandbox';
  var example = [
    '# Roadlog API console, ' + environment.toUpperCase() + '.',
    '#',
    '# Data needs an access token. Get one with',
    "# LogIn below (your account's e-mail and",
    '# password' + (sandbox ? '; no account? SignUp first)' : ')') + ', or',
    '# use the token an OAuth client got from',
    '# /api/oauth/token. Paste it into "Access',
    '# token" above: it is sent as',
    '# "Authorization: Bearer <token>" (the Headers',
    '# tab below sets any other header). Run Me.',
    '#',
    '# Errors are marked as you type, before',
    '# anything is sent. Ctrl-Enter runs the',
    '# operation under the cursor, Ctrl-Space',
    '# completes, the book icon opens the docs.',
    '',
    '# Needs no token: what the API offers.',
    'query EntryPoints {',
    '  __schema {',
    '    queryType { fields { name description } }',
    '    mutationType { fields { name description } }',
    '  }',
    '}',
    '',
    'mutation LogIn {',
    '  auth {',
    '    login(',
    '      email: "you@example.com"',
    '      password: "your password"',
    '    ) { accessToken refreshToken }',
    '  }',
    '}',
    '',
    'query Me {',
    '  me { id email firstName lastName }',
    '}',
  ];
  if (sandbox) {
    example = example.concat([
      '',
      '# Sandbox only: a new account and its token.',
      'mutation SignUp {',
      '  signUp {',
      '    user(',
      '      email: "you@example.com"',
      '      password: "a long passphrase"',
      '      firstName: "Jeanne"',
      '      lastName: "Martin"',
      '    ) { accessToken refreshToken }',
      '  }',
      '}',
    ]);
  }
  example = example.join('\n') + '\n';

  // `?query=` (a GraphQL GET opened in the browser) opens that document.
  var params = new URLSearchParams(window.location.search);

  function schemaLoaded(schema) {
    root.setAttribute('data-schema', schema ? 'loaded' : 'missing');
  }

  // The token field is not a form to send: Enter keeps the token where it is.
  document.getElementById('roadlog-token-form').addEventListener('submit', function (event) {
    event.preventDefault();
  });

  root.textContent = '';
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: example,
      query: params.get('query') || undefined,
      variables: params.get('variables') || undefined,
      operationName: params.get('operationName') || undefined,
      isHeadersEditorEnabled: true,
      // Tabs and history live as long as the browser tab: a password typed into LogIn or a
      // token in the Headers tab does not stay on the machine.
      storage: window.sessionStorage,
      shouldPersistHeaders: false,
      onSchemaChange: schemaLoaded,
    })
  );
})();
