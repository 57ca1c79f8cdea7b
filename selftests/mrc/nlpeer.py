#!/usr/bin/env python3
# Minimal generic-netlink client for mrc peers (add, show), used by tests
# when mrcctl has no "peer add".  Usage: nlpeer.py add NODE A1[,A2] | show NODE
import socket, struct, sys, os
NETLINK_GENERIC=16; GENL_ID_CTRL=16; CTRL_CMD_GETFAMILY=3; CTRL_ATTR_FAMILY_ID=1; CTRL_ATTR_FAMILY_NAME=2
NLM_F_REQUEST=1; NLM_F_ACK=4; NLM_F_DUMP=0x300
def attr(t, data):
    l=4+len(data); return struct.pack('HH', l, t)+data+b'\0'*((4-l%4)%4)
def msg(fam, cmd, payload, flags=NLM_F_REQUEST|NLM_F_ACK):
    g=struct.pack('BBH', cmd, 1, 0)+payload
    return struct.pack('IHHII', 16+len(g), fam, flags, 1, 0)+g
def parse(buf):
    out=[]; i=0
    while i+4<=len(buf):
        l,t=struct.unpack('HH', buf[i:i+4])
        if l<4: break
        out.append((t&0x3fff, buf[i+4:i+l])); i+=(l+3)&~3
    return out
s=socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC); s.bind((0,0))
s.send(msg(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, attr(CTRL_ATTR_FAMILY_NAME, b'mrc\0'), NLM_F_REQUEST))
r=s.recv(65536); fam=[struct.unpack('H',v[:2])[0] for t,v in parse(r[20:]) if t==CTRL_ATTR_FAMILY_ID][0]
cmd=sys.argv[1]
if cmd=='add':
    node=int(sys.argv[2]); addrs=b''.join(attr(3, socket.inet_aton(a)) for a in sys.argv[3].split(','))
    s.send(msg(fam, 8, attr(3|0x8000, attr(1, struct.pack('I',node))+attr(2|0x8000, addrs))))
    r=s.recv(65536); err=struct.unpack('i', r[16:20])[0]; print('add', err); sys.exit(err!=0)
if cmd=='show':
    node=int(sys.argv[2])
    s.send(msg(fam, 10, attr(3|0x8000, attr(1, struct.pack('I',node)))))
    r=s.recv(65536)
    0 and print('raw', len(r), struct.unpack('IHHII', r[:16]))
    if struct.unpack('H', r[4:6])[0]==2: print('err', struct.unpack('i', r[16:20])[0]); sys.exit(1)
    names={1:'plane',2:'rail',3:'ev',4:'lqpn',5:'rqpn',6:'state',7:'srtt_us',8:'rto_us',9:'inflight',10:'tx',11:'acked',12:'lost',13:'probes',14:'replies',15:'timeouts',16:'changes'}
    for t,v in parse(r[20:]):
        if t!=3: continue
        for pt,pv in parse(v):
            if pt==5: print('active', struct.unpack('I',pv)[0])
            if pt!=4: continue
            d={}
            for at,av in parse(pv):
                n=names.get(at)
                if not n: continue
                d[n]= av.rstrip(b'\0').decode() if at==2 else (av[0] if at==6 else struct.unpack('I' if len(av)==4 else 'Q', av)[0])
            print(d)
