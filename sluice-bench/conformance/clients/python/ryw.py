"""Read-your-writes client for PyMySQL (Debian python3-pymysql); the protocol is in ../README.md."""
import collections
import sys

import pymysql

READ = "SELECT v, @@server_id FROM ryw WHERE k = %s"
WRITE = "UPDATE ryw SET v = %s WHERE k = %s"


class Tally:
    def __init__(self):
        self.reads = self.stale = self.errors = self.no_token = 0
        self.servers = collections.Counter()

    def read(self, conn, hint, key, expected, exact):
        try:
            with conn.cursor() as cur:
                cur.execute(hint + READ, (key,))
                value, server_id = cur.fetchone()
        except pymysql.MySQLError as e:
            self.error(e)
            return
        self.reads += 1
        self.servers[server_id] += 1
        if (value != expected) if exact else (value < expected):
            self.stale += 1

    def error(self, e):
        self.errors += 1
        print(f"python: {e}", file=sys.stderr)

    def line(self):
        servers = ",".join(f"{k}:{v}" for k, v in sorted(self.servers.items()))
        return (f"reads={self.reads} stale={self.stale} errors={self.errors} "
                f"no_token={self.no_token} servers={servers}\n")


def main(mode, host, port, user, password, database, key, count, result_file):
    count = int(count)

    def connect():
        # Autocommit as a web request runs; PyMySQL's own default would keep a transaction open.
        return pymysql.connect(host=host, port=int(port), user=user, password=password,
                               database=database, autocommit=True)

    def write(conn, value):
        with conn.cursor() as cur:
            cur.execute(WRITE, (value, key))

    tally = Tally()
    if mode in ("session", "global"):
        writer = connect()
        reader = writer if mode == "session" else connect()
        for i in range(1, count + 1):
            try:
                write(writer, i)
            except pymysql.MySQLError as e:
                tally.error(e)
                continue
            tally.read(reader, "", key, i, mode == "session")
    elif mode == "token-write":
        conn = connect()
        for i in range(1, count + 1):
            token = "-"
            try:
                write(conn, i)
                with conn.cursor() as cur:
                    cur.execute("SELECT sluice_last_gtid()")
                    gtid = cur.fetchone()[0]
                if gtid:
                    token = gtid.decode() if isinstance(gtid, bytes) else gtid
                else:
                    tally.no_token += 1
            except pymysql.MySQLError as e:
                tally.error(e)
            print(f"{i} {token}", flush=True)
            if not sys.stdin.readline():
                break
        print("end", flush=True)
    elif mode == "token-read":
        conn = connect()
        for line in sys.stdin:
            if line.strip() == "end":
                break
            i, token = line.split()
            if token == "-":
                tally.no_token += 1
            hint = "" if token == "-" else f"/*CONSISTENT_WITH={token}*/ "
            tally.read(conn, hint, key, int(i), False)
            print("ok", flush=True)
    else:
        print(f"python: unknown mode '{mode}'", file=sys.stderr)
        return 2
    with open(result_file, "w") as f:
        f.write(tally.line())
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
