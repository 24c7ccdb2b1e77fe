#!/usr/bin/env bash
# One name per fact (docs/tool.md, "One name per fact"): a status block's
# facts, which cyclock info writes of its own process and cyclock status of
# another's (tools/cyclock/block_out.c), are named the same in both, in
# JSON and in Prometheus's format, for a program linked with libcyclock:
#   json        every key of a status --json object but pid, command and
#               object is a key of info --json, and the counts' keys are
#               the same; what info has beyond them is its own (the tool,
#               describe, the segment, the engine, the resolution, the
#               machine, the costs)
#   prometheus  every family of status --format prometheus (its counters'
#               _total aside, its cyclock_process_* of before 0.1's names
#               aside) is one of info --format prometheus's, with the same
#               labels but the process's (pid, command, mode, object);
#               what info has beyond them is its own (the build, the
#               machine, the resolution, the costs)
# Both read on the same clocks (CYCLOCK_SOURCE as the test's); the block
# keys of either read against block.schema.json are test_info.sh's and
# test_status.sh's.
# shellcheck source=tests/tool/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=tests/tool/cli/status_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/status_lib.sh"

start linked "$T/status_linked"
status json --json "$pid"
expect json 0 || fail "status --json failed"
cp "$out" "$tmp/status.json"
status prom --format prometheus "$pid"
expect prom 0 || fail "status --format prometheus failed"
cp "$out" "$tmp/status.prom"
"$CYCLOCK" info --json >"$tmp/info.json" || fail "info --json: exit $?"
"$CYCLOCK" info --format prometheus >"$tmp/info.prom" || fail "info --format prometheus: exit $?"

"$py" - "$tmp" <<'PY' || cli_fail "one name per fact (see above)"
import json, re, sys
tmp = sys.argv[1]
bad = []
s, i = json.load(open(tmp + '/status.json'))[0], json.load(open(tmp + '/info.json'))
if s.get('clocks') != i.get('clocks'):
    bad.append('not on the same clocks: status %s, info %s' % (s.get('clocks'), i.get('clocks')))
block = set(s) - {'pid', 'command', 'object'}
if block - set(i):
    bad.append('status --json keys that info --json lacks: %s' % sorted(block - set(i)))
INFO_OWN = {'cyclock_version', 'build_type', 'describe', 'segment', 'engine', 'resolution',
            'machine', 'read_cost_ns'}
if set(i) - block - INFO_OWN:
    bad.append('info --json keys that status --json lacks: %s' % sorted(set(i) - block - INFO_OWN))
if set(s.get('counts', {})) != set(i.get('counts', {})):
    bad.append('counts: status %s, info %s' % (sorted(s.get('counts', {})), sorted(i.get('counts', {}))))

def families(path):
    """{family: set of label names} of a Prometheus text file."""
    typed, out = {}, {}
    for ln in open(path):
        m = re.match(r'# TYPE (\S+) (\S+)$', ln)
        if m:
            typed[m.group(1)] = m.group(2)
            continue
        m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ', ln)
        if m and not ln.startswith('#'):
            labels = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(2) or ''))
            out.setdefault(m.group(1), set()).update(labels)
    return typed, out

PROCESS = {'pid', 'command', 'mode', 'object'}
st, sf = families(tmp + '/status.prom')
it, inf = families(tmp + '/info.prom')
for name, labels in sf.items():
    if name.startswith('cyclock_process_'):
        continue  # the old names, kept one release
    base = name[:-len('_total')] if st.get(name) == 'counter' else name
    if base not in inf:
        bad.append('status family %s: info has no %s' % (name, base))
    elif labels - PROCESS != inf[base]:
        bad.append('%s: labels %s in status, %s in info' % (base, sorted(labels - PROCESS), sorted(inf[base])))
INFO_FAMILIES = {'cyclock_build_info', 'cyclock_clocksource_info', 'cyclock_machine_info',
                 'cyclock_resolution_step_seconds', 'cyclock_read_cost_seconds'}
status_bases = set(n[:-len('_total')] if st.get(n) == 'counter' else n for n in sf)
if set(inf) - status_bases - INFO_FAMILIES:
    bad.append('info families status lacks: %s' % sorted(set(inf) - status_bases - INFO_FAMILIES))
for b in bad:
    print('FAIL:', b, file=sys.stderr)
print('%d block keys, %d counts keys, %d families in both' % (len(block), len(s.get('counts', {})),
      len(status_bases & set(inf))))
sys.exit(1 if bad else 0)
PY

((cli_failures == 0)) || exit 1
echo "one name per fact: info and status name the block's facts alike"
