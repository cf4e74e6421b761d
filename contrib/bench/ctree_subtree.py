#!/usr/bin/python3
"""ctree_subtree.py: how long a delete of a big tree-counter subtree holds other
trees (doc/performance.md, "Tree counters").

  contrib/bench/ctree_subtree.py PORT

Against a running mcds-server on 127.0.0.1:PORT (-m 2048): builds big ->
100 children -> 1,000 grandchildren each (100,101 objects), one increment
per leaf, then deletes big while another connection increments the tree
"other" once a millisecond; prints how long the delete took to answer and
the longest probe before and after it began."""
import socket
import sys
import threading
import time

port=int(sys.argv[1])
def conn():
    s=socket.create_connection(("127.0.0.1",port)); return s
s=conn()
def pipe(lines, expect_ok=True):
    s.sendall(("".join(l+"\r\n" for l in lines)).encode())
    got=0; buf=b""
    while got<len(lines):
        d=s.recv(1<<20); buf+=d; got=buf.count(b"\n")
    return buf
pipe(["ctdef 1 103,104,106,107"])
pipe(["ctobj big", "ctobj other"])
lines=[]
for m in range(100):
    lines.append("ctobj big.%d parent=big"%m)
pipe(lines)
for m in range(100):
    pipe(["ctobj big.%d.%d parent=big.%d"%(m,l,m) for l in range(1000)])
for m in range(100):
    pipe(["ctincr big.%d.%d 1 103 @%d 1"%(m,l,1609459200+3600*(l%24)) for l in range(1000)])
print("built 100,100 objects")
lat=[]; stop=[False]
def prober():
    p=conn()
    while not stop[0]:
        t=time.perf_counter(); p.sendall(b"ctincr other 1 103 @1609459200 1\r\n"); p.recv(100); lat.append(time.perf_counter()-t)
        time.sleep(0.001)
th=threading.Thread(target=prober); th.start(); time.sleep(1)
n0=len(lat)
t=time.perf_counter(); r=pipe(["delete big"]); d=time.perf_counter()-t
time.sleep(1); stop[0]=True; th.join()
during=sorted(lat[n0:]); before=sorted(lat[:n0])
print("delete answered %r in %.1f ms; probe max before %.2f ms, max after the delete began %.2f ms"%(r.strip(),d*1000,before[-1]*1000,during[-1]*1000))
