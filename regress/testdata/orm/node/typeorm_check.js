// A TypeORM app (npm's typeorm, reflect-metadata, pg), entities as
// EntitySchema: a generated key, an enum column with a default, a uuid,
// a create-date column, numeric and jsonb, an index, a one-to-many with
// ON DELETE CASCADE; synchronize, then what TypeORM's schema builder still
// finds to change (nothing, when the catalog reads back as it wrote it);
// saves, relations, the query builder, a transaction, cascading deletes,
// paging, a unique violation. Run by regress/orm_test.go's TestNodeORMs.
require('reflect-metadata');
const { DataSource, EntitySchema } = require('typeorm');
const url = `postgres://postgres@${process.argv[2]}:${process.argv[3]}/${process.argv[4]}`;
const out = (...a) => console.log(JSON.stringify(a));
const Author = new EntitySchema({
  name: 'Author', tableName: 'authors',
  columns: {
    id: { type: 'int', primary: true, generated: true },
    name: { type: 'varchar', length: 100, unique: true },
    kind: { type: 'enum', enum: ['person', 'org'], default: 'person' },
    born: { type: 'date', nullable: true },
    uid: { type: 'uuid', generated: 'uuid' },
    created: { type: 'timestamptz', createDate: true },
    rating: { type: 'numeric', precision: 5, scale: 2, nullable: true },
    data: { type: 'jsonb', nullable: true },
  },
  relations: { books: { type: 'one-to-many', target: 'Book', inverseSide: 'author' } },
  indices: [{ name: 'IDX_author_born', columns: ['born'] }],
});
const Book = new EntitySchema({
  name: 'Book', tableName: 'books',
  columns: { id: { type: 'int', primary: true, generated: 'increment' }, title: { type: 'text' }, pages: { type: 'int', default: 0 } },
  relations: { author: { type: 'many-to-one', target: 'Author', joinColumn: true, onDelete: 'CASCADE', inverseSide: 'books' } },
});
(async () => {
  const ds = new DataSource({ type: 'postgres', url, entities: [Author, Book], synchronize: false, logging: false });
  await ds.initialize();
  await ds.dropDatabase();
  await ds.synchronize();
  const q = ds.createQueryRunner();
  const pending = await ds.driver.createSchemaBuilder().log();
  out('pending after sync', pending.upQueries.map(x => x.query));
  const A = ds.getRepository('Author'), B = ds.getRepository('Book');
  const a = await A.save({ name: 'Ann', born: '1990-05-01', rating: '4.50', data: { k: [1, 2] } });
  const o = await A.save({ name: 'Org', kind: 'org' });
  out('saved', a.id, o.id, typeof a.uid, a.kind);
  await B.save([{ title: 'B1', author: a, pages: 10 }, { title: 'B2', author: a }, { title: 'B3', author: o, pages: 300 }]);
  const all = await A.find({ relations: { books: true }, order: { name: 'ASC', books: { title: 'ASC' } } });
  out('find', all.map(x => [x.name, x.kind, x.born, x.rating, x.data, x.books.map(b => [b.title, b.pages])]));
  const qb = await B.createQueryBuilder('b').leftJoinAndSelect('b.author', 'a').where('b.pages > :p', { p: 5 }).orderBy('b.pages', 'DESC').getMany();
  out('qb', qb.map(b => [b.title, b.author.name]));
  const raw = await B.createQueryBuilder('b').select('a.kind', 'kind').addSelect('SUM(b.pages)', 'total').innerJoin('b.author', 'a').groupBy('a.kind').orderBy('a.kind').getRawMany();
  out('raw', raw);
  await ds.transaction(async m => { await m.getRepository('Book').update({ title: 'B2' }, { pages: 7 }); });
  out('count', await B.count({ where: { pages: 7 } }));
  await A.delete({ name: 'Org' });
  out('cascade', await B.count());
  const [rows, n] = await B.findAndCount({ skip: 1, take: 1, order: { id: 'ASC' } });
  out('page', rows.map(r => r.title), n);
  try { await A.save({ name: 'Ann' }); } catch (e) { out('dup', e.code); }
  await ds.destroy();
})().catch(e => { console.log('FAIL', e.message, e.query || ''); process.exit(1); });
