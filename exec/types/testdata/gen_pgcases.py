#!/usr/bin/env python3
"""Regenerates ../pgcases_data_test.go from a running PostgreSQL 15.

    python3 gen_pgcases.py HOST PORT > ../pgcases_data_test.go && gofmt -w ../pgcases_data_test.go

For every (type, settings, input file) below it runs SELECT '<input>'::<type>
through psql and records the printed text or the error (SQLSTATE, message,
DETAIL, HINT, CONTEXT). Inputs live in inputs/*.txt, one per line; most are
the literals of the regression corpus (shared/pg-regress/sql).
"""
import subprocess, sys

host, port = sys.argv[1], sys.argv[2]

SPECS = [  # (type as cast, settings, input file, typmod for the Go side)
    ('int2', '', 'int2'), ('int4', '', 'int4'), ('int8', '', 'int8'), ('oid', '', 'oid'),
    ('bool', '', 'bool'), ('uuid', '', 'uuid'), ('bytea', '', 'bytea'),
    ('float8', '', 'float'), ('float4', '', 'float'), ('float8', 'EFD=0', 'float'),
    ('float4', 'EFD=0', 'float'), ('float8', 'EFD=-3', 'float'), ('float4', 'EFD=3', 'float'),
    ('numeric', '', 'numeric'), ('numeric(5,2)', 'TYPMOD=327686', 'num52'),
    ('numeric(3,-2)', 'TYPMOD=198658', 'num52'), ('numeric(2,5)', 'TYPMOD=131081', 'num52'),
    ('numeric(2,2)', 'TYPMOD=131078', 'num52'),
    ('date', 'DS=ISO, MDY', 'date2'), ('date', 'DS=ISO, DMY', 'date2'), ('date', 'DS=ISO, YMD', 'date2'),
    ('date', 'DS=Postgres, DMY', 'date2'), ('date', 'DS=SQL, MDY', 'date2'), ('date', 'DS=German', 'date2'),
    ('time', '', 'time2'), ('time(2)', 'TYPMOD=2', 'time2'),
    ('timestamp', 'DS=ISO, MDY', 'ts2'), ('timestamp', 'DS=Postgres, MDY', 'ts2'),
    ('timestamp', 'DS=SQL, DMY', 'ts2'), ('timestamp', 'DS=German', 'ts2'), ('timestamp(0)', 'TYPMOD=0', 'ts2'),
    ('timestamptz', 'DS=ISO, MDY;TZ=PST8PDT', 'tstz2'), ('timestamptz', 'DS=Postgres, MDY;TZ=PST8PDT', 'tstz2'),
    ('timestamptz', 'DS=SQL, MDY;TZ=Asia/Kolkata', 'tstz2'), ('timestamptz', 'DS=ISO, MDY;TZ=UTC', 'tstz2'),
    ('timestamptz', 'DS=German;TZ=Europe/Moscow', 'tstz2'), ('timestamptz', 'DS=ISO, YMD;TZ=America/St_Johns', 'tstz2'),
    ('interval', 'IS=postgres', 'iv2'), ('interval', 'IS=postgres_verbose', 'iv2'),
    ('interval', 'IS=sql_standard', 'iv2'), ('interval', 'IS=iso_8601', 'iv2'),
    ('interval year', 'TYPMOD=327679', 'ivt'), ('interval year to month', 'TYPMOD=458751', 'ivt'),
    ('interval day to hour', 'TYPMOD=67698687', 'ivt'), ('interval minute to second', 'TYPMOD=402718719', 'ivt'),
    ('interval second(2)', 'TYPMOD=268435458', 'ivt'), ('interval(3)', 'TYPMOD=2147418115', 'ivt'),
    ('json', '', 'json'), ('json', '', 'json2'), ('jsonb', '', 'jsonb'), ('jsonb', '', 'json2'),
    ('varchar(3)', 'TYPMOD=7', 'vc'), ('bpchar(3)', 'TYPMOD=7', 'vc'), ('name', '', 'name'), ('"char"', '', 'char'),
    ('int4[]', '', 'int4array'), ('text[]', '', 'textarray'), ('float8[]', '', 'float8array'),
    ('numeric[]', '', 'numericarray'), ('bool[]', '', 'boolarray'), ('bytea[]', '', 'byteaarray'),
    ('date[]', 'DS=SQL, DMY', 'datearray'), ('timestamptz[]', 'DS=ISO, MDY;TZ=Europe/Berlin', 'tstzarray'),
    ('interval[]', 'IS=iso_8601', 'intervalarray'), ('jsonb[]', '', 'jsonbarray'), ('uuid[]', '', 'uuidarray'),
    ('varchar(3)[]', 'TYPMOD=7', 'varchararray'),
    # differential inputs: random token soups (see inputs/diff_*.txt)
    ('date', 'DS=ISO, MDY', 'diff_rnd'), ('timestamp', 'DS=SQL, DMY', 'diff_rnd'), ('time', '', 'diff_rnd'),
    ('timestamptz', 'DS=Postgres, MDY;TZ=America/Los_Angeles', 'diff_rnd'),
    ('timestamp', 'DS=ISO, YMD', 'diff_rnd2'), ('timestamptz', 'DS=ISO, DMY;TZ=Australia/Adelaide', 'diff_rnd2'),
    ('time', '', 'diff_rnd2'), ('date', 'DS=German', 'diff_rnd2'),
    ('interval', 'IS=postgres', 'diff_rndiv'), ('interval', 'IS=sql_standard', 'diff_rndiv'),
    ('numeric', '', 'diff_rndnum'), ('float8', '', 'diff_rndnum'), ('float4', '', 'diff_rndnum'), ('int8', '', 'diff_rndnum'),
    ('jsonb', '', 'diff_rndjson'), ('json', '', 'diff_rndjson'), ('text[]', '', 'diff_rndarr'), ('int4[]', '', 'diff_rndarr'),
    ('float8', '', 'diff_bigint'), ('float8', '', 'diff_rndf8'), ('float4', '', 'diff_rndf4'), ('float4', '', 'diff_bigint'),
]

def setup(settings):
    out = []
    for kv in settings.split(';'):
        if not kv: continue
        k, v = kv.split('=', 1)
        if k == 'DS': out.append("SET DateStyle='%s';" % v)
        elif k == 'TZ': out.append("SET TimeZone='%s';" % v)
        elif k == 'IS': out.append("SET IntervalStyle='%s';" % v)
        elif k == 'EFD': out.append("SET extra_float_digits=%s;" % v)
    return out

def run(typ, settings, lines):
    sql = ['\\set VERBOSITY verbose'] + setup(settings)
    for i, l in enumerate(lines):
        lit = "'" + l.replace("'", "''") + "'"
        sql.append('\\echo ###%d' % i)
        sql.append("select format('<%%s>', %s::%s);" % (lit, typ))
    sql.append('\\echo ###end')
    # psql writes errors to stderr; merge the streams to keep the order
    p = subprocess.Popen(['psql', '-h', host, '-p', port, '-U', 'postgres', '-At', '-X'],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, _ = p.communicate('\n'.join(sql))
    res = {}
    for b in ('\n' + out).split('\n###')[1:]:
        head, _, body = b.partition('\n')
        if head == 'end': break
        i = int(head)
        if 'ERROR:' in body:
            code = msg = detail = hint = ctx = ''
            for x in body.split('\n'):
                if 'ERROR:' in x:
                    code, _, msg = x.split('ERROR:', 1)[1].strip().partition(': ')
                elif x.startswith('DETAIL:'): detail = x[7:].strip()
                elif x.startswith('HINT:'): hint = x[5:].strip()
                elif x.startswith('CONTEXT:'): ctx = x[8:].strip()
            res[i] = ('', code, msg, detail, hint, ctx)
        else:
            body = body.rstrip('\n')
            assert body.startswith('<') and body.endswith('>'), body
            res[i] = (body[1:-1], '', '', '', '', '')
    return res

def q(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'

print('// Code generated by testdata/gen_pgcases.py from PostgreSQL 15.20; DO NOT EDIT.\n')
print('package types\n')
print('var pgCases = []pgCase{')
for typ, settings, f in SPECS:
    lines = [l.rstrip('\n') for l in open('inputs/%s.txt' % f)]
    lines = [l for l in lines if not any(w in l.lower() for w in ('now', 'today', 'tomorrow', 'yesterday', 'current'))]
    res = run(typ, settings, lines)
    gotyp = typ.replace('"char"', 'char').replace('(3)', '') if not typ.endswith('[]') else typ
    gotyp = gotyp.split('(')[0].split(' ')[0] if not typ.endswith('[]') else typ
    for i, l in enumerate(lines):
        out, code, msg, detail, hint, ctx = res[i]
        print('\t{%s, %s, %s, %s, %s, %s, %s, %s, %s},' % (q(gotyp), q(settings), q(l), q(out), q(code), q(msg), q(detail), q(hint), q(ctx)))
print('}')
