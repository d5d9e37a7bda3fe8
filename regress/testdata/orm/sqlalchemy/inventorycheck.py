"""An SQLAlchemy 1.4 application with Alembic 1.8, run against a server:
its schema made from the models (serial and identity keys, defaults,
enums, foreign keys, indexes, a check constraint), what reflection reads
back, what Alembic's autogenerate finds different between the models and
the database (nothing, when the catalog reads back as PostgreSQL's does),
an Alembic migration run through its operations, then ORM and Core
queries, printing what they return. regress/orm_test.go runs it against
this server and against PostgreSQL 15 and compares the outputs.

Usage: python3 inventorycheck.py HOST PORT DBNAME
"""
import decimal
import enum
import sys
import warnings

import sqlalchemy as sa
from sqlalchemy import orm
from alembic.migration import MigrationContext
from alembic.operations import Operations
from alembic.autogenerate import compare_metadata

warnings.simplefilter("ignore")  # SQLAlchemy 2.0's deprecations
host, port, dbname = sys.argv[1], sys.argv[2], sys.argv[3]
engine = sa.create_engine(f"postgresql+psycopg2://postgres@{host}:{port}/{dbname}", future=True)

Base = orm.declarative_base()


class Kind(enum.Enum):
    tool = "tool"
    part = "part"


class Warehouse(Base):
    __tablename__ = "warehouse"
    id = sa.Column(sa.Integer, primary_key=True)
    code = sa.Column(sa.String(8), nullable=False, unique=True)
    city = sa.Column(sa.Text, server_default="unknown")
    active = sa.Column(sa.Boolean, nullable=False, server_default=sa.false())
    products = orm.relationship("Product", back_populates="warehouse", order_by="Product.id")


class Product(Base):
    __tablename__ = "product"
    id = sa.Column(sa.BigInteger, sa.Identity(), primary_key=True)
    warehouse_id = sa.Column(sa.ForeignKey("warehouse.id", ondelete="CASCADE"), nullable=False, index=True)
    name = sa.Column(sa.String(40), nullable=False)
    kind = sa.Column(sa.Enum(Kind, name="product_kind"), nullable=False)
    price = sa.Column(sa.Numeric(10, 2), nullable=False, server_default="0")
    stock = sa.Column(sa.Integer, nullable=False, server_default=sa.text("0"))
    attrs = sa.Column(sa.dialects.postgresql.JSONB, server_default=sa.text("'{}'::jsonb"))
    added = sa.Column(sa.DateTime(timezone=True), server_default=sa.func.now())
    warehouse = orm.relationship("Warehouse", back_populates="products")
    __table_args__ = (
        sa.CheckConstraint("price >= 0", name="price_positive"),
        sa.UniqueConstraint("warehouse_id", "name", name="product_name_per_warehouse"),
        sa.Index("product_kind_price", "kind", sa.text("price DESC")),
    )


Base.metadata.create_all(engine)


def show(label, value):
    print(f"{label}: {value}")


def differences(diffs):
    """Alembic's differences as (kind, table, name), without object reprs."""
    out = []
    for d in diffs:
        if isinstance(d, list):  # modify_*: [(kind, schema, table, column, ...)]
            out.append((d[0][0], d[0][2], d[0][3]))
            continue
        obj = d[1]
        table = getattr(getattr(obj, "table", None), "name", None)
        out.append((d[0], table, getattr(obj, "name", None)))
    return sorted(out, key=str)


insp = sa.inspect(engine)
show("tables", sorted(insp.get_table_names()))
for table in ("warehouse", "product"):
    for c in insp.get_columns(table):
        show(f"{table} column", (c["name"], str(c["type"]), c["nullable"], c["default"], c.get("autoincrement"),
                                 bool(c.get("identity"))))
    show(f"{table} pk", insp.get_pk_constraint(table))
    show(f"{table} fks", insp.get_foreign_keys(table))
    show(f"{table} indexes", sorted((i["name"], i["column_names"], i["unique"]) for i in insp.get_indexes(table)))
    show(f"{table} uniques", sorted((u["name"], u["column_names"]) for u in insp.get_unique_constraints(table)))
    show(f"{table} checks", insp.get_check_constraints(table))
show("enums", insp.get_enums())

with engine.connect() as conn:
    ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
    show("autogenerate differences", differences(compare_metadata(ctx, Base.metadata)))

# A migration through Alembic's operations: add a column with a default,
# an index, rename a column, alter a type, drop what was added.
with engine.begin() as conn:
    op = Operations(MigrationContext.configure(conn))
    op.add_column("warehouse", sa.Column("capacity", sa.Integer, nullable=False, server_default="100"))
    op.create_index("warehouse_city", "warehouse", ["city"])
    op.alter_column("warehouse", "city", new_column_name="town")
    op.alter_column("product", "name", type_=sa.String(80), existing_type=sa.String(40))
    op.create_check_constraint("stock_positive", "product", "stock >= 0")
with engine.connect() as conn:
    insp = sa.inspect(conn)
    show("after migration", [(c["name"], str(c["type"]), c["default"]) for c in insp.get_columns("warehouse")])
    show("product name type", [str(c["type"]) for c in insp.get_columns("product") if c["name"] == "name"])
    show("checks after migration", sorted(c["name"] for c in insp.get_check_constraints("product")))
with engine.begin() as conn:
    op = Operations(MigrationContext.configure(conn))
    op.drop_constraint("stock_positive", "product", type_="check")
    op.alter_column("warehouse", "town", new_column_name="city")
    op.drop_index("warehouse_city", "warehouse")
    op.drop_column("warehouse", "capacity")
    op.alter_column("product", "name", type_=sa.String(40), existing_type=sa.String(80))
with engine.connect() as conn:
    ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
    show("differences after the round trip", differences(compare_metadata(ctx, Base.metadata)))

# The ORM.
with orm.Session(engine) as s:
    ws = [Warehouse(code=f"W{i}", city=["Oslo", "Lima", None][i % 3]) for i in range(1, 5)]
    s.add_all(ws)
    s.flush()
    for i, w in enumerate(ws):
        for j in range(i + 1):
            s.add(Product(warehouse=w, name=f"p{i}{j}", kind=Kind.tool if j % 2 else Kind.part,
                          price=decimal.Decimal(f"{i + j}.{j}9"), stock=10 * j, attrs={"color": ["red", "blue"][j % 2]}))
    s.commit()
    show("warehouses", [(w.id, w.code, w.city, w.active) for w in s.scalars(sa.select(Warehouse).order_by(Warehouse.id))])
    show("identity ids", s.scalars(sa.select(Product.id).order_by(Product.id)).all())
    show("defaults", s.execute(sa.select(Product.stock, Product.attrs).where(Product.name == "p00")).one())
    show("joined", s.execute(sa.select(Warehouse.code, sa.func.count(Product.id), sa.func.sum(Product.price))
                             .join(Product).group_by(Warehouse.code).order_by(Warehouse.code)).all())
    show("selectinload", [(w.code, [p.name for p in w.products]) for w in
                          s.scalars(sa.select(Warehouse).options(orm.selectinload(Warehouse.products)).order_by(Warehouse.id))])
    show("joinedload", [(p.name, p.warehouse.code) for p in
                        s.scalars(sa.select(Product).options(orm.joinedload(Product.warehouse)).where(Product.kind == Kind.tool).order_by(Product.id))])
    show("jsonb", s.scalars(sa.select(Product.name).where(Product.attrs["color"].astext == "blue").order_by(Product.name)).all())
    show("enum filter", s.scalar(sa.select(sa.func.count()).where(Product.kind == Kind.part)))
    show("window", s.execute(sa.select(Product.name, sa.func.rank().over(partition_by=Product.warehouse_id, order_by=Product.price.desc()))
                             .order_by(Product.name)).all())
    show("cte", s.execute(sa.select(sa.literal_column("n")).select_from(
        sa.select(sa.func.generate_series(1, 3).label("n")).cte("c"))).scalars().all())
    try:
        s.add(Product(warehouse=ws[0], name="bad", kind=Kind.part, price=-1))
        s.flush()
    except sa.exc.IntegrityError as e:
        show("check violation", e.orig.pgcode)
        s.rollback()
    s.execute(sa.update(Product).where(Product.kind == Kind.tool).values(stock=Product.stock + 5))
    s.execute(sa.delete(Warehouse).where(Warehouse.code == "W2"))
    s.commit()
    show("after update and cascade", s.execute(sa.select(sa.func.count(Product.id), sa.func.sum(Product.stock))).one())
    with s.begin_nested():
        s.execute(sa.delete(Product))
        s.rollback()
    show("savepoint", s.scalar(sa.select(sa.func.count(Product.id))))
    upsert = sa.dialects.postgresql.insert(Warehouse).values(id=1, code="W1", city="Bergen")
    s.execute(upsert.on_conflict_do_update(index_elements=["id"], set_={"city": upsert.excluded.city}))
    s.commit()
    show("upsert", s.scalar(sa.select(Warehouse.city).where(Warehouse.id == 1)))
