"""The MicroPython program that hosts a tenant's script inside the WASI interpreter.

It fetches the script over the host-call channel (`host.call(name, json)`, answered by
`micropython_runtime`), compiles it, builds `ctx` and calls `main(ctx)`, then reports the
result (JSON-encoded inside the guest, under the guest's limits) or the error with its line.
Calls named `__...` belong to this prelude; everything else is the tenant's host API.
`print` is routed over the same channel (WASI stdout is not connected at all), so output is
capped as it is written.

MicroPython compiles this text on every run (about 2 700 fuel per character), so it is kept
terse; the readable version of each piece is the python runtime's `scriptapi.py`.
"""

PRELUDE = r"""
import host,json,gc
H=host.call
D=json.dumps
def C(o,*a):
 r=json.loads(H(o,D(a)))
 if'error'in r:raise HostError(r['error'])
 return r.get('value')
class HostError(Exception):pass
class K:
 def get(s,k,d=None):
  v=C('kv_get',k)
  return d if v is None else v
 def set(s,k,v):C('kv_set',k,v)
 def delete(s,k):C('kv_delete',k)
 def keys(s,p=''):return C('kv_keys',p)
class X:
 def emit(s,t,p=None):C('emit',t,p)
 def log(s,*v):C('log',' '.join(x if isinstance(x,str)else repr(x)for x in v))
def P(*v,sep=' ',end='\n'):H('__print',D([sep.join(str(x)for x in v)+end]))
def E(k,e):exec(C('__report'),{'C':C,'k':k,'e':e})
def M():
 try:c=compile(C('__source'),'<script>','exec')
 except BaseException as e:return E('__rejected',e)
 m=C('__compiled')
 g={'__name__':'script','HostError':HostError,'print':P}
 try:
  exec(c,g)
  f=g.get('main')
  if not callable(f):return C('__nomain')
  if m['mode']=='validate':return C('__result')
  x=X();x.kv=K();x.rule=X()
  for a,b in m['context'].items():setattr(x,a,b)
  for a,b in m['rule'].items():setattr(x.rule,a,b)
  r=f(x)
 except MemoryError:
  g=c=None
  gc.collect()
  return H('__memory','[]')
 except BaseException as e:return E('__failed',e)
 try:t=D(r)
 except BaseException as e:return C('__notjson',type(r).__name__,str(e))
 H('__result_json',t)
M()
"""

#: Compiled only when something failed: the error's last line and its line in the script.
REPORT = r"""
import sys,io
b=io.StringIO()
sys.print_exception(e,b)
n=None
for t in b.getvalue().split('\n'):
 if'"<script>", line 'in t:n=int(t.split('"<script>", line ')[1].split(',')[0])
C(k,b.getvalue().strip().split('\n')[-1],n)
"""
