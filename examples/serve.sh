# Sourced by examples/run and examples/typescript/check: starts `roadlog serve` (sandbox) on a
# temporary SQLite database (the default one of the data folder $1) and a random port, and sets
#   server_pid  the process, to stop at the end (stop_roadlog);
#   url         http://127.0.0.1:PORT;
#   database    the database options, for other `roadlog` commands on the same database.
# Needs $roadlog (the binary) and jq; `fail` must be defined by the caller.

start_roadlog() {
  local work="$1"
  database=(--data-dir "$work" --environment sandbox)
  "$roadlog" serve "${database[@]}" --bind 127.0.0.1:0 --log-format json 2>"$work/server.log" &
  server_pid=$!
  local _
  for _ in $(seq 1 600); do
    grep -q '"roadlog is serving' "$work/server.log" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || fail "roadlog serve exited: $(tail -n 5 "$work/server.log")"
    sleep 0.1
  done
  local address
  address="$(grep -m1 '"roadlog is serving' "$work/server.log" | jq -r '.address // .fields.address // empty')"
  [ -n "$address" ] || fail "roadlog did not say where it listens: $(tail -n 5 "$work/server.log")"
  url="http://$address"
}

stop_roadlog() {
  if [ -n "${server_pid:-}" ]; then
    kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    server_pid=""
  fi
}
