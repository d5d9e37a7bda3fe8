// Drives the server with node-postgres: parameters, types, errors and the
// version-control tables.
const { Client } = require('pg');
(async () => {
  const [host, port] = process.argv.slice(2);
  const c = new Client({ host, port: Number(port), user: 'postgres', database: 'postgres' });
  await c.connect();
  const r = await c.query("SELECT $1::int + 1 AS n, ARRAY[1,2] AS a, '{\"x\":1}'::jsonb AS j, 'x'::text AS s", [41]);
  console.log(JSON.stringify(r.rows));
  await c.query('CREATE TABLE js (k int PRIMARY KEY, v text)');
  await c.query('INSERT INTO js VALUES ($1, $2), ($3, $4)', [1, 'one', 2, 'two']);
  await c.query("SELECT dolt_commit('-Am', 'from node')");
  const b = await c.query('SELECT name FROM dolt_branches');
  console.log(JSON.stringify(b.rows));
  const d = await c.query("SELECT diff_type, to_k FROM dolt_diff('HEAD~', 'HEAD', 'js') ORDER BY to_k");
  console.log(JSON.stringify(d.rows));
  try { await c.query('SELECT * FROM nope'); } catch (e) { console.log('error', e.code); }
  // After a failed simple query, an insert with parameters (extended
  // protocol) is acknowledged and must stay: it once vanished.
  await c.query('CREATE TABLE lossy (id int PRIMARY KEY)');
  try { await c.query('SELECT * FROM no_such_table'); } catch (e) { console.log('error', e.code); }
  const ins = await c.query('INSERT INTO lossy VALUES ($1) RETURNING id', [1]);
  const cnt = await c.query('SELECT count(*)::int AS n FROM lossy');
  console.log(JSON.stringify(ins.rows), JSON.stringify(cnt.rows));
  await c.end();
})().catch(e => { console.error(e); process.exit(1); });
