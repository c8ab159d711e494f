#!/usr/bin/env python3
# Prints the 15 longest functions and initializers, in lines from the declaration to its closing
# brace. Usage: scripts/longest-functions.py Sources/LineupJobs Sources/LineupStore
import re,sys,os
res=[]
for root in sys.argv[1:]:
    for dp,dn,fn in os.walk(root):
        for f in fn:
            if not f.endswith('.swift'): continue
            p=os.path.join(dp,f); lines=open(p).read().split('\n')
            for i,l in enumerate(lines):
                if re.match(r'^\s*(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|package|open|static|final|override|mutating|nonisolated|convenience|required)\s+)*(func\s|init[(<?!])', l):
                    if '{' in l and l.rstrip().endswith('}'): continue
                    indent=len(l)-len(l.lstrip())
                    for j in range(i+1,len(lines)):
                        if lines[j].startswith(' '*indent+'}') and len(lines[j])-len(lines[j].lstrip())==indent:
                            res.append((j-i+1,p,i+1,l.strip()[:70])); break
res.sort(reverse=True)
for n,p,ln,l in res[:15]: print(f"{n:4d} {p}:{ln} {l}")
