#!/usr/bin/env python3
# Lists public and open declarations with no /// doc comment above them (attributes skipped),
# then their count. Usage: scripts/undocumented-public.py Sources/LineupStore Sources/LineupJobs
import re,sys,os
decl=re.compile(r'^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\s+(?:(?:static|final|override|mutating|nonisolated|convenience|required|indirect|private\(set\)|internal\(set\))\s+)*(func|var|let|init|struct|class|enum|protocol|typealias|subscript|case|actor|extension)\b')
total=0
for root in sys.argv[1:]:
    for dp,dn,fn in os.walk(root):
        for f in sorted(fn):
            if not f.endswith('.swift'): continue
            p=os.path.join(dp,f); lines=open(p).read().split('\n')
            for i,l in enumerate(lines):
                m=decl.match(l)
                if not m or m.group(4)=='extension': continue
                j=i-1
                while j>=0 and (lines[j].strip().startswith('@') ):
                    j-=1
                if j>=0 and (lines[j].strip().startswith('///') or lines[j].strip().endswith('*/')): continue
                total+=1
                print(f"{p}:{i+1}: {l.strip()[:110]}")
print("total", total)
