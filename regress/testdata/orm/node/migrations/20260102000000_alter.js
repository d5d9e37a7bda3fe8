exports.up = async (knex) => {
  await knex.schema.alterTable('accounts', (t) => { t.string('name').nullable(); t.renameColumn('prefs', 'settings'); });
  await knex.schema.alterTable('entries', (t) => { t.integer('amount').notNullable().defaultTo(0); });
};
exports.down = async (knex) => {
  await knex.schema.alterTable('entries', (t) => { t.dropColumn('amount'); });
  await knex.schema.alterTable('accounts', (t) => { t.renameColumn('settings', 'prefs'); t.dropColumn('name'); });
};
