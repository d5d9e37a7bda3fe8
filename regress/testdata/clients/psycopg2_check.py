# Drives the server with psycopg2 (Debian's python3-psycopg2): typed
# parameters and results, a transaction, and the version-control functions.
import datetime, decimal, sys, uuid

import psycopg2
import psycopg2.extras

host, port = sys.argv[1], int(sys.argv[2])
c = psycopg2.connect(host=host, port=port, user="postgres", dbname="postgres")
cur = c.cursor()
cur.execute("CREATE TABLE py (id serial PRIMARY KEY, n numeric, t timestamptz, u uuid, a int[], j jsonb, b bytea)")
cur.execute(
    "INSERT INTO py (n, t, u, a, j, b) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
    (decimal.Decimal("1.50"), datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
     str(uuid.UUID(int=5)), [1, 2, 3], psycopg2.extras.Json({"a": [1, None]}), b"\x00\x01"))
print("id", cur.fetchone()[0])
c.commit()
cur.execute("SELECT n, t, u, a, j, b FROM py")
n, t, u, a, j, b = cur.fetchone()
print("row", n, t.isoformat(), u, a, j, bytes(b))
cur.execute("SELECT dolt_commit('-Am', 'from psycopg2')")
print("commit", len(cur.fetchone()[0]))
cur.execute("SELECT message FROM dolt_log LIMIT 1")
print("log", cur.fetchone()[0])
c.commit()
try:
    cur.execute("SELECT 1/0")
except psycopg2.Error as e:
    print("error", e.pgcode)
    c.rollback()
cur.execute("SELECT count(*) FROM py")
print("count", cur.fetchone()[0])
