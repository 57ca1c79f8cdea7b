#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks what generating uapi/linux/mrc_netlink.h from
Documentation/netlink/specs/mrc.yaml does not: that every knob of
mrc/core/config_knobs.h is a config attribute of the spec with the same
name and range, and every config attribute a knob; and that a subset
names attributes of its parent set.  The numbers themselves (enum values,
attributes, commands, family name, version, multicast group) are the
generated header's, which the fast tier compares with the spec
(scripts/ynl-gen --check).  Exit 0 iff nothing differs."""
import os
import re
import sys

import yaml

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
spec = yaml.safe_load(open(os.path.join(TOP, 'Documentation/netlink/specs/mrc.yaml')))
errors = 0


def up(s):
    return s.upper().replace('-', '_')


def fail(msg):
    global errors
    errors += 1
    print('MISMATCH:', msg)


sets = {s['name']: s for s in spec['attribute-sets']}
for s in spec['attribute-sets']:
    if 'subset-of' not in s:
        continue
    parent = sets.get(s['subset-of'])
    names = [a['name'] for a in parent['attributes']] if parent else []
    for a in s['attributes']:
        if a['name'] not in names:
            fail('subset %s: %s not in %s' %
                 (s['name'], a['name'], s['subset-of']))
    print('ok subset', s['name'], 'of', s['subset-of'])

cfg = sets['config']
pre = cfg['name-prefix']
attrs = {up(pre + a['name']): a for a in cfg['attributes']
         if a['type'] != 'unused'}
knobs = open(os.path.join(TOP, 'mrc/core/config_knobs.h')).read()
# an X() entry may be split over lines: join them
knobs = re.sub(r'\\\n\s*', ' ', knobs)
seen = set()
for n, a, mi, ma in re.findall(
        r'X\((\w+),\s*(\w+),\s*(0x[0-9a-fA-F]+|\d+),\s*(0x[0-9a-fA-F]+|\d+),', knobs):
    mi, ma = int(mi, 0), int(ma, 0)
    seen.add(a)
    e = attrs.get(a)
    if not e or e.get('checks') != {'min': mi, 'max': ma} \
            or e['name'] != n.replace('_', '-'):
        fail('knob %s range/name' % n)
    else:
        print('ok knob', n, mi, ma)
for a in sorted(set(attrs) - seen):
    fail('config attribute %s is no knob of config_knobs.h' % a)
if not seen:
    fail('no knob found in config_knobs.h')

print('%d mismatches' % errors)
sys.exit(errors != 0)
