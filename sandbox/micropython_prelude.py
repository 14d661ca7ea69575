"""The MicroPython program that hosts a tenant's script inside the WASI interpreter.

`BOOT` is the only source the interpreter compiles on every run: it asks the host to copy a
read-only filesystem image (`micropython_rom`) into a buffer it allocated, mounts it and
imports `PRELUDE` from it as bytecode, precompiled once per process by `mpy-cross`.
Compiling the prelude from source cost ~4 M fuel (~0.7 ms) per run; loading its bytecode
costs a fraction. The prelude then unmounts the image, fetches the script and the context
over the host-call channel (`host.call(name, json)`, answered by `micropython_runtime`),
compiles the script, builds `ctx`, calls `main(ctx)` and reports the result (JSON-encoded
inside the guest, under the guest's limits) or the error with its line. Calls named `__...`
belong to the prelude; everything else is the tenant's host API. `print` is routed over the
same channel (WASI stdout is not connected at all), so output is capped as it is written.

Names in `PRELUDE` are short because each global, attribute and argument name is interned
when the bytecode loads (locals are free); the readable version of each piece is the python
runtime's `scriptapi.py`.
"""

#: The module name the prelude is imported as, and where its image is mounted meanwhile.
MODULE = "cadenza"
MOUNT = "/cadenza"

BOOT = f"""import host,vfs,sys,uctypes
b=bytearray({{size}})
host.call('__rom',str(uctypes.addressof(b)))
vfs.mount(vfs.VfsRom(b),'{MOUNT}')
sys.path.insert(0,'{MOUNT}')
import {MODULE}
"""

PRELUDE = f"""
import host,json,sys,vfs
sys.path.pop(0)
vfs.umount('{MOUNT}')
H=host.call
D=json.dumps
L=json.loads
def C(o,*a):
 r=L(H(o,D(a)))
 if'again'in r:r=L(H('__again','[]'))
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
class R:pass
class X:
 def emit(s,t,p=None):C('emit',t,p)
 def log(s,*v):C('log',' '.join(x if isinstance(x,str)else repr(x)for x in v))
def P(*v,sep=' ',end='\\n'):H('__print',D([sep.join(str(x)for x in v)+end]))
def E(k,e):
 import io
 b=io.StringIO()
 sys.print_exception(e,b)
 n=None
 for t in b.getvalue().split('\\n'):
  if'"<script>", line 'in t:n=int(t.split('"<script>", line ')[1].split(',')[0])
 C(k,b.getvalue().strip().split('\\n')[-1],n)
def Z():
 import gc
 gc.collect()
 H('__memory','[]')
def M():
 s,m,w=C('__source')
 try:c=compile(s,'<script>','exec')
 except MemoryError:
  s=None
  return Z()
 except BaseException as e:return E('__rejected',e)
 s=None
 H('__compiled','[]')
 g={{'__name__':'script','HostError':HostError,'print':P}}
 try:
  exec(c,g)
  f=g.get('main')
  if not callable(f):return C('__nomain')
  if m=='validate':return C('__result')
  x=X();x.kv=K();x.rule=R()
  for a,b in w.items():
   if a!='rule':setattr(x,a,b)
  for a,b in w['rule'].items():setattr(x.rule,a,b)
  r=f(x)
 except MemoryError:
  g=c=None
  return Z()
 except BaseException as e:return E('__failed',e)
 try:t=D(r)
 except BaseException as e:return C('__notjson',type(r).__name__,str(e))
 H('__result_json',t)
M()
"""
