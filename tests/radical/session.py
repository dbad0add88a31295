"""A mixed RADICAL session, written by radical.utils' Python profiler and
by elide (tests/bin/radical_agent.rs), and its pure-Python reference, both
loaded with radical.analytics. Run by tests/radical_analytics.rs:

    python session.py <work dir> <radical_agent binary> <ntp offset, s>

Writes `<work>/base/.radical/utils/ntp.cache` (the host clock `offset` s
ahead of NTP time), then two sessions:

- `<work>/mixed`: component `client` (ru.Profiler) schedules and collects
  six tasks; two elide processes, `agent_0` and `agent_1`, started first
  and named by RADICAL_PROFILE_NAME only, execute them (the client hands
  each task to an agent over its stdin and waits for the uid back, so
  schedule -> exec_start -> exec_stop -> collect is the causal order).
- `<work>/reference`: the same rows at the same times, every component
  written by ru.Profiler.

Prints one JSON object: per session the events radical.analytics gives
(time, event, comp, uid), its t_start, the causal order the tasks ran in,
and the raw sync_abs messages of the mixed files.
"""

import csv
import json
import os
import socket
import subprocess
import sys
import time

work, agent_bin, offset = sys.argv[1], sys.argv[2], float(sys.argv[3])
base = os.path.join(work, 'base')
mixed = os.path.join(work, 'mixed')
reference = os.path.join(work, 'reference')
os.makedirs(os.path.join(base, '.radical', 'utils'))

# radical.utils reads the cache at profiler creation and, when it is younger
# than 60 s, uses it without asking an NTP server.
now = time.time()
with open(os.path.join(base, '.radical', 'utils', 'ntp.cache'), 'w') as f:
    f.write('%f\n%f\n' % (now, now - offset))
os.environ['RADICAL_BASE'] = base
os.environ['RADICAL_PROFILE'] = '1'

import radical.utils as ru        # noqa: E402  (after RADICAL_BASE is set)
import radical.analytics as ra    # noqa: E402


def hosts_decides():
    '''Whether /etc/hosts lists this host's name, so getfqdn() needs no DNS.'''
    name = socket.gethostname()
    try:
        with open('/etc/hosts') as f:
            lines = [l.split('#')[0].split()[1:] for l in f]
    except OSError:
        return False
    return any(name in names for names in lines)


agents = ['agent_0', 'agent_1']
tasks = ['task.%06d' % i for i in range(6)]

# Where DNS would decide the host, elide is told (PROFILE_HOST).
host_set = not hosts_decides()
procs = dict()
for name in agents:
    env = dict(os.environ, RADICAL_PROFILE_DIR=mixed, RADICAL_PROFILE_NAME=name)
    if host_set:
        env['RADICAL_PROFILE_HOST'] = socket.getfqdn()
    procs[name] = subprocess.Popen([agent_bin], env=env, text=True,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert procs[name].stdout.readline().strip() == 'ready', name

# The reference's profiles open now too, each with the first event its
# mixed counterpart has, so no row of either precedes its sync_abs.
client = ru.Profiler('client', ns='radical', path=mixed)
ref = {name: ru.Profiler(name, ns='radical', path=reference)
       for name in ['client'] + agents}
for name in agents:
    ref[name].prof('bootstrap_start')

# Open the client's profiles before the first task time is taken, so that
# time is not before their sync_abs.
client.prof('bootstrap_start')
ref['client'].prof('bootstrap_start')

order = list()
for i, uid in enumerate(tasks):
    name = agents[i % 2]
    for event, state in [('schedule', 'AGENT_SCHEDULING'), (None, None),
                         ('collect', 'DONE')]:
        if event is None:
            procs[name].stdin.write(uid + '\n')
            procs[name].stdin.flush()
            assert procs[name].stdout.readline().strip() == uid, uid
            order += [['exec_start', uid], ['exec_stop', uid]]
            continue
        ts = time.time()
        client.prof(event, uid=uid, state=state, ts=ts)
        ref['client'].prof(event, uid=uid, state=state, ts=ts)
        order.append([event, uid])

for name, proc in procs.items():
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0, name
client.close()
ref['client'].close()

# The agents' rows, replayed into the reference at their own times.
sync = dict()
for name in agents:
    with open(os.path.join(mixed, name + '.prof')) as f:
        for row in csv.reader(f):
            if row[0].startswith('#'):
                continue
            t, event, comp, tid, uid, state, msg = row
            if event == 'sync_abs':
                sync[name] = msg
            elif uid:
                ref[name].prof(event, uid=uid, state=state, msg=msg,
                               ts=float(t), comp=comp, tid=tid)
    ref[name].prof('bootstrap_stop')
    ref[name].close()
with open(os.path.join(mixed, 'client.prof')) as f:
    sync['client'] = [r for r in csv.reader(f) if r[1] == 'sync_abs'][0][6]


def load(path):
    session = ra.Session(path, 'radical')
    events = [[e[ru.TIME], e[ru.EVENT], e[ru.COMP], e[ru.UID]]
              for entity in session.get() for e in entity.events]
    return {'t_start': session.t_start, 'events': events}


print(json.dumps({'host_set': host_set, 'order': order, 'sync': sync,
                  'mixed': load(mixed), 'reference': load(reference)}))
