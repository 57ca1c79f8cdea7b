#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks that Documentation/netlink/specs/mrc.yaml says what
uapi/linux/mrc.h and mrc/core/config_knobs.h say: every enum value, attribute
number, command number, the family name, version and multicast group, and
every knob's range.  Exit 0 iff nothing differs."""
import os
import re
import sys

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
spec = yaml.safe_load(open(os.path.join(TOP, 'Documentation/netlink/specs/mrc.yaml')))
hdr = open(os.path.join(TOP, 'uapi/linux/mrc.h')).read()
hdr = re.sub(r'/\*.*?\*/', '', hdr, flags=re.S)
errors = 0


def up(s):
    return s.upper().replace('-', '_')


def fail(msg):
    global errors
    errors += 1
    print('MISMATCH:', msg)


enums = {}
for name, body in re.findall(r'enum (\w+) \{(.*?)\};', hdr, re.S):
    vals, v = {}, -1
    for item in [x.strip() for x in body.split(',') if x.strip()]:
        if '=' in item:
            k, e = [s.strip() for s in item.split('=')]
            v = eval(e, {}, dict(vals))
        else:
            k, v = item, v + 1
        vals[k] = v
    enums[name] = vals
defs = dict(re.findall(r'#define (\w+)\s+(.+)', hdr))


def check(ename, expected):
    if ename not in enums:
        fail('enum %s not in uapi' % ename)
        return
    got = {k: v for k, v in enums[ename].items()
           if not k.startswith('__') and not k.endswith('_MAX')}
    if got != expected:
        fail('%s\n  uapi: %s\n  spec: %s' % (ename, got, expected))
    else:
        print('ok', ename, len(got), 'values')


for d in spec['definitions']:
    if d['type'] == 'enum':
        v, exp = d.get('value-start', 0), {}
        pre = d.get('name-prefix', 'mrc-' + d['name'] + '-')
        en = d.get('enum-name', 'mrc-' + d['name']).replace('-', '_')
        for e in d['entries']:
            n = e['name'] if isinstance(e, dict) else e
            if isinstance(e, dict):
                v = e.get('value', v)
            exp[up(pre + n)] = v
            v += 1
        check(en, exp)
    elif d['type'] == 'const':
        if d['value'] != eval(defs[up('mrc-' + d['name'])]):
            fail('const ' + d['name'])

for s in spec['attribute-sets']:
    if 'subset-of' in s:
        # attributes of another set, which is checked itself
        parent = [x for x in spec['attribute-sets']
                  if x['name'] == s['subset-of']]
        names = [a['name'] for a in parent[0]['attributes']] if parent else []
        for a in s['attributes']:
            if a['name'] not in names:
                fail('subset %s: %s not in %s' %
                     (s['name'], a['name'], s['subset-of']))
        continue
    v, exp = 1, {}
    for a in s['attributes']:
        v = a.get('value', v)
        exp[up(s['name-prefix'] + a['name'])] = v
        v += 1
    # an explicit count name (not __..._MAX) is a value of the enum too
    cnt = s.get('attr-cnt-name')
    if cnt and not cnt.startswith('__'):
        exp[up(cnt)] = v
    check(s['enum-name'].replace('-', '_'), exp)

ops = spec['operations']
v, exp = 1, {}
for o in ops['list']:
    v = o.get('value', v)
    exp[up(ops['name-prefix'] + o['name'])] = v
    v += 1
check(ops['enum-name'].replace('-', '_'), exp)

if spec['name'] != eval(defs['MRC_GENL_NAME']):
    fail('family name')
if spec['version'] != int(defs['MRC_GENL_VERSION']):
    fail('family version')
if spec['mcast-groups']['list'][0]['name'] != eval(defs['MRC_GENL_MCGRP_EVENTS']):
    fail('multicast group')

knobs = open(os.path.join(TOP, 'mrc/core/config_knobs.h')).read()
cfg = [x for x in spec['attribute-sets'] if x['name'] == 'config'][0]['attributes']
for n, a, mi, ma in re.findall(
        r'X\((\w+), (\w+), (0x[0-9a-fA-F]+|\d+), (0x[0-9a-fA-F]+|\d+),', knobs):
    mi, ma = int(mi, 0), int(ma, 0)
    e = [x for x in cfg if up('mrc-config-a-' + x['name']) == a]
    if not e or e[0]['checks'] != {'min': mi, 'max': ma} \
            or e[0]['name'] != n.replace('_', '-'):
        fail('knob %s range/name' % n)
    else:
        print('ok knob', n, mi, ma)

print('%d mismatches' % errors)
sys.exit(errors != 0)
