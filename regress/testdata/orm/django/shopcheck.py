"""A small Django 3.2 application run against a server: its migrations
(Django's own apps and one of its own, with the catalog introspection
`migrate` does), then the queries a typical app makes, printing what they
return. regress/orm_test.go runs it against this server and against
PostgreSQL 15 and compares the outputs line by line.

Usage: python3 shopcheck.py HOST PORT DBNAME
"""
import decimal
import io
import sys

import django
from django.conf import settings

host, port, dbname = sys.argv[1], sys.argv[2], sys.argv[3]
settings.configure(
    DEBUG=False,
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "shop"],
    DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": dbname,
                           "USER": "postgres", "HOST": host, "PORT": port}},
    USE_TZ=True,
    TIME_ZONE="UTC",
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
)
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction, IntegrityError  # noqa: E402
from django.db.models import Count, Sum, F, Q, Max, Exists, OuterRef, Subquery, Prefetch  # noqa: E402
from django.contrib.auth.models import User, Group, Permission  # noqa: E402
from shop.models import Customer, Order, Item, Tag  # noqa: E402

out = io.StringIO()
call_command("migrate", interactive=False, verbosity=0, stdout=out)
call_command("migrate", interactive=False, verbosity=1, stdout=out)
print("migrate again:", "No migrations to apply." in out.getvalue())


def show(label, value):
    print(f"{label}: {value}")


# Django's own apps: a user, a group, permissions (contenttypes' rows).
u = User.objects.create_user("ann", "ann@example.com", "pw")
g = Group.objects.create(name="staff")
u.groups.add(g)
g.permissions.add(*Permission.objects.filter(codename__startswith="add_").order_by("codename")[:3])
show("user groups", list(User.objects.filter(groups__name="staff").values_list("username", flat=True)))
show("permissions of staff", sorted(g.permissions.values_list("codename", flat=True)))
show("check_password", User.objects.get(username="ann").check_password("pw"))

# Rows, bulk creation, unique violations inside atomic blocks.
tags = Tag.objects.bulk_create([Tag(name=n) for n in ("new", "gift", "rush")])
customers = [Customer.objects.create(name=f"c{i}", email=f"C{i}@Example.com", data={"tier": i % 3, "tags": ["a", "b"][: i % 3]})
             for i in range(1, 9)]
try:
    with transaction.atomic():
        Customer.objects.create(name="dup", email="C1@Example.com")
except IntegrityError as e:
    show("unique violation", type(e).__name__)
for i, c in enumerate(customers):
    for j in range(i % 4):
        o = Order.objects.create(customer=c, total=decimal.Decimal(f"{10 * (j + 1)}.{i}5"), status="paid" if j % 2 else "open")
        Item.objects.bulk_create([Item(order=o, sku=f"sku{(i + k) % 5}", qty=k + 1) for k in range(j + 1)])
        o.tags.set(tags[: j + 1])
show("counts", (Customer.objects.count(), Order.objects.count(), Item.objects.count()))

# Joins, prefetches, aggregates, annotations.
show("select_related", [(o.id, o.customer.name) for o in Order.objects.select_related("customer").order_by("-id")[:3]])
show("prefetch", [(c.name, [o.id for o in c.orders.all()]) for c in Customer.objects.prefetch_related("orders").order_by("id")[:4]])
show("prefetch items", [(o.id, sorted(i.sku for i in o.items.all())) for o in Order.objects.prefetch_related(Prefetch("items", queryset=Item.objects.order_by("sku"))).filter(customer__name="c4")])
show("annotate", list(Customer.objects.annotate(n=Count("orders"), s=Sum("orders__total")).order_by("-n", "name").values_list("name", "n", "s")[:4]))
show("aggregate", Order.objects.aggregate(sum_total=Sum("total"), top=Max("total"), n=Count("id")))
show("group by status", list(Order.objects.values("status").annotate(n=Count("id")).order_by("status")))
show("filter across relations", sorted(Customer.objects.filter(orders__items__sku="sku3").distinct().values_list("name", flat=True)))
show("exists", list(Customer.objects.filter(Exists(Order.objects.filter(customer=OuterRef("pk"), status="paid"))).order_by("id").values_list("name", flat=True)))
show("subquery", list(Customer.objects.annotate(last=Subquery(Order.objects.filter(customer=OuterRef("pk")).order_by("-id").values("id")[:1])).order_by("id").values_list("name", "last")))
show("q objects", list(Order.objects.filter(Q(status="paid") | Q(total__gte=30)).order_by("id").values_list("id", flat=True)))
show("in list", list(Customer.objects.filter(id__in=[c.id for c in customers[2:7]]).order_by("-id").values_list("id", flat=True)))
show("iexact, icontains", (Customer.objects.filter(email__iexact="c3@example.com").count(), Customer.objects.filter(email__icontains="EXAMPLE").count()))
show("startswith", list(Item.objects.filter(sku__startswith="sku1").values_list("sku", flat=True).distinct()))
show("json", (list(Customer.objects.filter(data__tier=2).order_by("id").values_list("name", flat=True)),
              list(Customer.objects.filter(data__tags__contains=["b"]).order_by("id").values_list("name", flat=True)),
              list(Customer.objects.filter(data__has_key="tier").values_list("id", flat=True)[:2])))
show("m2m", list(Tag.objects.annotate(n=Count("orders")).order_by("name").values_list("name", "n")))
show("slice", list(Item.objects.order_by("-qty", "id").values_list("id", "qty")[2:5]))
show("dates", Order.objects.filter(created__year__gte=2000).count())

# Updates with F expressions, get_or_create, update_or_create, deletes that cascade.
Order.objects.filter(status="open").update(total=F("total") + 1)
show("after update", str(Order.objects.filter(status="open").aggregate(s=Sum("total"))["s"]))
obj, created = Customer.objects.get_or_create(email="new@example.com", defaults={"name": "newbie"})
obj2, created2 = Customer.objects.get_or_create(email="new@example.com", defaults={"name": "other"})
show("get_or_create", (created, created2, obj.pk == obj2.pk))
Customer.objects.update_or_create(email="new@example.com", defaults={"name": "renamed"})
show("update_or_create", Customer.objects.get(email="new@example.com").name)
with transaction.atomic():
    sid = transaction.savepoint()
    Item.objects.all().delete()
    transaction.savepoint_rollback(sid)
show("savepoint rollback", Item.objects.count())
customers[3].delete()
show("cascade", (Customer.objects.count(), Order.objects.count(), Item.objects.count()))
with transaction.atomic():
    locked = list(Customer.objects.select_for_update().filter(name__in=["c1", "c2"]).order_by("id").values_list("name", flat=True))
show("select_for_update", locked)

# What makemigrations and inspectdb read from the catalog.
out = io.StringIO()
call_command("makemigrations", "shop", check=True, dry_run=True, stdout=out)
show("makemigrations", out.getvalue().strip())
out = io.StringIO()
call_command("inspectdb", "shop_customer", "shop_order", "shop_item", stdout=out)
for line in out.getvalue().splitlines():
    if line.strip() and not line.startswith("#"):
        print("inspectdb:", line)
with connection.cursor() as cur:
    show("introspected constraints", sorted(
        (name, c["unique"], c["primary_key"], bool(c["foreign_key"]), c["index"])
        for name, c in connection.introspection.get_constraints(cur, "shop_order").items()
        if not name.endswith("_like")))
    show("sequences", connection.introspection.get_sequences(cur, "shop_order"))
