exports.up = async (knex) => {
  await knex.schema.createTable('accounts', (t) => {
    t.increments('id');
    t.string('email', 120).notNullable().unique();
    t.enu('status', ['active', 'closed']).defaultTo('active');
    t.decimal('balance', 12, 2).defaultTo(0);
    t.jsonb('prefs');
    t.timestamps(true, true);
  });
  await knex.schema.createTable('entries', (t) => {
    t.bigIncrements('id');
    t.integer('account_id').unsigned().references('id').inTable('accounts').onDelete('CASCADE');
    t.text('memo');
    t.specificType('tags', 'text[]');
    t.uuid('ref').defaultTo(knex.raw('gen_random_uuid()'));
    t.index(['account_id', 'memo']);
  });
};
exports.down = async (knex) => { await knex.schema.dropTable('entries'); await knex.schema.dropTable('accounts'); };
