#!/usr/bin/env bash
# A throwaway PostgreSQL server on loopback, for the tests that need a real one.
#
#   source .ci/postgres.sh   exports SCOPA_TEST_POSTGRES_URL (postgresql://...@127.0.0.1:PORT/scopa_test)
#                            and SCOPA_TEST_POSTGRES_DIR; `scopa_postgres_stop` stops the server
#   bash .ci/postgres.sh     starts one and prints its URL (stop: pg_ctl -D DIR/data stop)
#
# PostgreSQL comes from Debian's packages (apt-get install postgresql) when it is not installed.
# The cluster lives in a new temporary folder, listens on 127.0.0.1 only, on a free port, with
# trust authentication and fsync off: fast, and for tests only. As root it runs as the `postgres`
# user, which the Debian package creates (the server refuses to run as root).

_scopa_postgres_start() (
    set -euo pipefail
    log() { echo "postgres.sh: $*" >&2; }

    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
        log "installing PostgreSQL from Debian's packages"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq postgresql >&2
        bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi

    run_as=()
    if [ "$(id -u)" = 0 ]; then
        run_as=(runuser -u postgres --)
    fi
    dir=$(mktemp -d "${TMPDIR:-/tmp}/scopa-postgres.XXXXXX")
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

    "${run_as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 \
        --no-sync >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    "${run_as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" \
        start >&2 || { cat "$dir/server.log" >&2; exit 1; }
    "${run_as[@]}" "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres scopa_test
    log "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port, data in $dir"
    echo "$dir postgresql://postgres@127.0.0.1:$port/scopa_test"
)

if _scopa_postgres_started=$(_scopa_postgres_start); then
    SCOPA_TEST_POSTGRES_DIR=${_scopa_postgres_started%% *}
    SCOPA_TEST_POSTGRES_URL=${_scopa_postgres_started#* }
    export SCOPA_TEST_POSTGRES_DIR SCOPA_TEST_POSTGRES_URL
    scopa_postgres_stop() {
        local bindir
        bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
        if [ "$(id -u)" = 0 ]; then
            runuser -u postgres -- "$bindir/pg_ctl" -D "$SCOPA_TEST_POSTGRES_DIR/data" -m fast stop >&2
        else
            "$bindir/pg_ctl" -D "$SCOPA_TEST_POSTGRES_DIR/data" -m fast stop >&2
        fi
        rm -rf "$SCOPA_TEST_POSTGRES_DIR"
    }
    echo "$SCOPA_TEST_POSTGRES_URL"
    unset _scopa_postgres_started
else
    echo "postgres.sh: could not start PostgreSQL" >&2
    unset _scopa_postgres_started
    # `return` when sourced, `exit` when run
    return 1 2>/dev/null || exit 1
fi
