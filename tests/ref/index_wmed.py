#!/usr/bin/python3
# tests/ref/index_wmed.py -- independent reference for tests/test_index.c:
# exact (fractions) water-filling cap and volume-weighted median of SPEC §6.3.
# Run with /usr/bin/python3; prints the random cases of test_weighted_median_random.
from fractions import Fraction as F
def waterfill(vols, cap):
    n=len(vols); s=max(F(cap),F(1,n))
    w={i:F(v) for i,v in enumerate(vols)}
    capped=set()
    while True:
        tot_unc=sum(w[i] for i in w if i not in capped)
        rem=1-len(capped)*s
        sh={i:(s if i in capped else rem*w[i]/tot_unc) for i in w}
        over=[i for i in w if i not in capped and sh[i]>s]
        if not over: return sh
        for i in over: capped.add(i)
def wmed(trades, cap):  # trades: list of (prov, price, vol)
    provs=sorted(set(p for p,_,_ in trades))
    vol={p:sum(v for q,_,v in trades if q==p) for p in provs}
    sh=waterfill([vol[p] for p in provs],cap)
    shp={p:sh[i] for i,p in enumerate(provs)}
    wp={}
    for p,pr,v in trades: wp[pr]=wp.get(pr,0)+shp[p]*F(v)/vol[p]
    prices=sorted(wp); cum=F(0)
    for k,pr in enumerate(prices):
        cum+=wp[pr]
        if cum>F(1,2): return F(pr)
        if cum==F(1,2): return (F(pr)+F(prices[k+1]))/2
import random
random.seed(7)
out=[]
for c in range(6):
    n=random.choice([2,4,5,7,10,12])
    trades=[]
    for p in range(n):
        for k in range(random.randint(1,4)):
            vol=random.choice([1,2,5,10,100,1000,50000])*1000000*(p+1 if p<2 else 1)
            price=random.choice([1990000,2000000,2010000,2500000,2500001,3000000])+random.choice([0,0,1])*random.randint(0,9)
            trades.append((p,price,vol))
    # integer weighted median via fractions
    q=wmed([(str(p),pr,v) for p,pr,v in trades],F(3,10))
    out.append((trades,int(q*4)))
for trades,q in out:
    print("{%d, {%s}, {%s}, {%s}, %d}," % (len(trades), ",".join(str(t[0]) for t in trades), ",".join(str(t[1]) for t in trades), ",".join(str(t[2]) for t in trades), q))
