// A knex app (npm's knex and pg): two migrations (increments, an enum as
// a check, decimals, jsonb, timestamps, a foreign key, a text array, a
// uuid default, a composite index, then added and renamed columns), what
// columnInfo and hasColumn read back, inserts with RETURNING, a join with
// aggregates, transactions committed and rolled back, paging, JSON
// operators, an upsert, and both migrations rolled back. Run by
// regress/orm_test.go's TestNodeORMs.
const knex = require('knex')({ client: 'pg', connection: `postgres://postgres@${process.argv[2]}:${process.argv[3]}/${process.argv[4]}`, migrations: { directory: __dirname + '/migrations' } });
const out = (...a) => console.log(JSON.stringify(a));
(async () => {
  await knex.raw('DROP TABLE IF EXISTS entries, accounts, knex_migrations, knex_migrations_lock CASCADE');
  const [batch, log] = await knex.migrate.latest();
  out('migrated', batch, log.map(f => f.split('/').pop()));
  out('hasTable', await knex.schema.hasTable('accounts'), await knex.schema.hasColumn('accounts', 'settings'), await knex.schema.hasColumn('accounts', 'prefs'));
  const info = await knex('accounts').columnInfo();
  out('columnInfo', Object.fromEntries(Object.entries(info).map(([k, v]) => [k, [v.type, v.nullable, v.defaultValue, v.maxLength]])));
  const ids = await knex('accounts').insert([{ email: 'a@x', balance: 10.5, settings: { dark: true } }, { email: 'b@x', status: 'closed' }]).returning('id');
  out('ids', ids);
  await knex('entries').insert([{ account_id: ids[0].id, memo: 'm1', tags: ['x'], amount: 5 }, { account_id: ids[0].id, memo: 'm2', amount: 7 }, { account_id: ids[1].id, memo: 'm3' }]);
  const rows = await knex('accounts as a').leftJoin('entries as e', 'e.account_id', 'a.id').select('a.email', 'a.status').sum({ total: 'e.amount' }).count({ n: 'e.id' }).groupBy('a.email', 'a.status').orderBy('a.email');
  out('join', rows);
  await knex.transaction(async (trx) => {
    await trx('accounts').where({ email: 'b@x' }).update({ balance: knex.raw('balance + ?', [3]), updated_at: knex.fn.now() });
    await trx('entries').where('amount', '>', 6).del();
  });
  out('after', await knex('accounts').select('email', 'balance').orderBy('id'), await knex('entries').count('* as n').first());
  try { await knex.transaction(async (trx) => { await trx('accounts').insert({ email: 'c@x' }); throw new Error('boom'); }); } catch (e) { out('rolled back', e.message, (await knex('accounts').count('* as n').first()).n); }
  out('page', await knex('entries').select('memo').orderBy('memo').limit(1).offset(1));
  out('whereIn', await knex('accounts').whereIn('status', ['closed']).pluck('email'));
  out('json', await knex('accounts').whereRaw("settings->>'dark' = 'true'").pluck('email'));
  out('upsert', await knex('accounts').insert({ email: 'a@x', balance: 1 }).onConflict('email').merge({ balance: 99 }).returning(['email', 'balance']));
  await knex.migrate.rollback();
  out('rolled back one', await knex.schema.hasColumn('accounts', 'settings'), await knex.schema.hasColumn('entries', 'amount'));
  await knex.migrate.rollback(undefined, true);
  out('all down', await knex.schema.hasTable('accounts'));
  await knex.destroy();
})().catch(e => { console.log('FAIL', e.message); process.exit(1); });
