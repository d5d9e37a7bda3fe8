// A Sequelize 6 app (npm's sequelize, pg, pg-hstore): models with a UUID
// key, a unique name, an enum with a default, JSONB, a text array and a
// decimal; sync with force, then with alter (which reads the catalog back);
// describeTable; create, findOrCreate, bulkCreate, eager loading with
// include, aggregates, operators, a rolled-back and a managed transaction,
// a unique violation, paging. Run by regress/orm_test.go's TestNodeORMs
// with the server's host, port and database.
const { Sequelize, DataTypes, Op } = require('sequelize');
const url = `postgres://postgres@${process.argv[2]}:${process.argv[3]}/${process.argv[4]}`;
const sequelize = new Sequelize(url, { logging: false });
const out = (...a) => console.log(JSON.stringify(a));
(async () => {
  const User = sequelize.define('User', {
    id: { type: DataTypes.UUID, defaultValue: DataTypes.UUIDV4, primaryKey: true },
    name: { type: DataTypes.STRING, allowNull: false, unique: true },
    role: { type: DataTypes.ENUM('admin', 'user'), defaultValue: 'user' },
    age: DataTypes.INTEGER,
    meta: DataTypes.JSONB,
    tags: DataTypes.ARRAY(DataTypes.STRING),
    score: DataTypes.DECIMAL(10, 2),
  });
  const Post = sequelize.define('Post', { title: DataTypes.STRING, body: DataTypes.TEXT, published: { type: DataTypes.BOOLEAN, defaultValue: false } });
  User.hasMany(Post); Post.belongsTo(User);
  await sequelize.sync({ force: true });
  await sequelize.sync({ alter: true });
  const d = await sequelize.getQueryInterface().describeTable('Users');
  out('describe', Object.fromEntries(Object.entries(d).map(([k, v]) => [k, [v.type, v.allowNull, v.primaryKey, v.defaultValue]])));
  const a = await User.create({ name: 'ann', age: 30, meta: { x: 1 }, tags: ['a', 'b'], score: '12.50' });
  const [b, created] = await User.findOrCreate({ where: { name: 'bob' }, defaults: { age: 40, role: 'admin' } });
  out('created', created, b.role, typeof b.id);
  await Post.bulkCreate([{ title: 'p1', UserId: a.id }, { title: 'p2', UserId: a.id, published: true }, { title: 'p3', UserId: b.id }]);
  const users = await User.findAll({ include: Post, order: [['name', 'ASC'], [Post, 'title', 'ASC']] });
  out('users', users.map(u => [u.name, u.role, u.age, u.meta, u.tags, u.score, u.Posts.map(p => [p.title, p.published])]));
  out('count', await Post.count({ where: { published: false } }));
  out('agg', await Post.findAll({ attributes: ['UserId', [sequelize.fn('COUNT', sequelize.col('id')), 'n']], group: ['UserId'], raw: true, order: [[sequelize.literal('n'), 'DESC']] }).then(r => r.map(x => Number(x.n))));
  await User.update({ age: 31 }, { where: { name: 'ann' } });
  out('where', (await User.findAll({ where: { age: { [Op.gte]: 31 }, name: { [Op.like]: '%n%' } } })).map(u => u.name));
  const t = await sequelize.transaction();
  await User.create({ name: 'cy', age: 1 }, { transaction: t });
  await t.rollback();
  out('after rollback', await User.count());
  await sequelize.transaction(async (tx) => { await Post.destroy({ where: { title: 'p3' }, transaction: tx }); });
  out('posts', await Post.count());
  try { await User.create({ name: 'ann' }); } catch (e) { out('dup', e.name, e.parent && e.parent.code); }
  out('paginate', (await Post.findAndCountAll({ limit: 1, offset: 1, order: [['title', 'ASC']] })).rows.map(p => p.title));
  await sequelize.close();
})().catch(e => { console.log('FAIL', e.message, e.sql || ''); process.exit(1); });
