# Drives the server with psycopg 3 (Debian's python3-psycopg): server-side
# binding with untyped text and NULL parameters, prepared statements,
# pipeline mode, binary COPY both ways, savepoint contexts, server-side
# cursors, the isolation level and the error fields drivers expose. The
# expected output is what PostgreSQL 15 prints for the same script.
import sys
from decimal import Decimal

import psycopg

host, port = sys.argv[1], int(sys.argv[2])
c = psycopg.connect(host=host, port=port, user="postgres", dbname="postgres", autocommit=True)
c.execute("CREATE TABLE p3 (id int PRIMARY KEY, t text, a text[], n numeric)")

print("concat", c.execute("SELECT 'a'::text || %s, %s::int + 1, %s::text", ["b", "41", None]).fetchone())
c.execute("INSERT INTO p3 VALUES (%s, %s, %s, %s)", [1, "x", ["a", "b c"], Decimal("1.5")])
c.execute("INSERT INTO p3 VALUES (%s, %s, %s, %s)", [2, None, None, None])
print("where", c.execute("SELECT id, a FROM p3 WHERE t = %s OR t IS NULL ORDER BY id", ["x"]).fetchall())
print("prepared", [c.execute("SELECT %s::int * 2, upper(%s)", [i, "p"], prepare=True).fetchone() for i in range(6)][-1])

with c.pipeline():
    c.execute("INSERT INTO p3 (id, t) VALUES (%s, %s)", [3, "pipe"])
    cur = c.execute("SELECT count(*) FROM p3 WHERE id = %s", [3])
print("pipeline", cur.fetchone())

cur = c.cursor()
with cur.copy("COPY p3 (id, t, n) FROM STDIN (FORMAT BINARY)") as cp:
    cp.set_types(["int4", "text", "numeric"])
    cp.write_row((10, "bin", Decimal("2.25")))
    cp.write_row((11, None, None))
rows = []
with cur.copy("COPY (SELECT id, t, n FROM p3 ORDER BY id) TO STDOUT (FORMAT BINARY)") as cp:
    cp.set_types(["int4", "text", "numeric"])
    rows = list(cp.rows())
print("copy", rows)

with c.transaction():
    c.execute("INSERT INTO p3 (id) VALUES (20)")
    try:
        with c.transaction():
            c.execute("INSERT INTO p3 (id) VALUES (21)")
            c.execute("SELECT 1/0")
    except psycopg.errors.DivisionByZero:
        print("savepoint rolled back")
    c.execute("INSERT INTO p3 (id) VALUES (22)")
print("after savepoints", c.execute("SELECT array_agg(id ORDER BY id) FROM p3 WHERE id >= 20").fetchone())

with c.transaction():
    sc = c.cursor(name="srv")
    sc.execute("SELECT id, t FROM p3 WHERE id > %s ORDER BY id", [1])
    print("server cursor", [d.name for d in sc.description], sc.fetchmany(2), sc.fetchall())
    sc.close()

c.autocommit = False
c.isolation_level = psycopg.IsolationLevel.SERIALIZABLE
print("isolation", c.execute("SHOW transaction_isolation").fetchone())
c.rollback()
c.isolation_level = None
c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
print("isolation", c.execute("SHOW transaction_isolation").fetchone())
c.rollback()
c.autocommit = True

for sql in ["INSERT INTO p3 (id) VALUES (1)", "INSERT INTO p3 (id, t) VALUES (NULL, 'x')"]:
    try:
        c.execute(sql)
    except psycopg.Error as e:
        d = e.diag
        print("diag", d.sqlstate, d.schema_name, d.table_name, d.column_name, d.constraint_name, d.message_detail)

# The ORMs' pattern: a failed statement, then an insert with parameters.
try:
    c.execute("SELECT * FROM no_such_table")
except psycopg.errors.UndefinedTable:
    pass
c.execute("INSERT INTO p3 (id) VALUES (%s)", [30])
print("kept", c.execute("SELECT count(*) FROM p3 WHERE id = 30").fetchone())
