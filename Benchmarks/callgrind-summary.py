import re,subprocess,sys
out=subprocess.run(["callgrind_annotate","--threshold=100","--auto=no",sys.argv[1]],capture_output=True,text=True).stdout
total=None;cats={}
rules=[("generic value witnesses",r"ValueWitness|wta$|wtk$|wca$|wxx$|WOd$|WOc$|WOh$|wet$|wst$|existential|Existential"),
("metadata lookup",r"Metadata|getCache|GenericCacheEntry|instantiateGenericMetadata|memcmp|MetadataCacheKey|getGenericMetadata|CMa$"),
("exclusivity checks",r"beginAccess|endAccess|AccessSet|tls_get_addr|SwiftTLSContext"),
("malloc/free",r"malloc\.c|slowAlloc|slowDealloc|_int_|allocObject|deallocClassInstance|deallocObject|cfree|tcache"),
("retain/release",r"swift_retain|swift_release|RefCount|release_dealloc|swift_bridgeObject|unknownObject"),
("RxCore",r"RxCore"),("OpenCombine",r"OpenCombine"),("workload",r"Workloads")]
for line in out.splitlines():
    m=re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)",line)
    if not m: continue
    n=int(m.group(1).replace(",",""));name=m.group(2)
    if "PROGRAM TOTALS" in name: total=n;continue
    fn=name.split(" [")[0]
    for c,r in rules:
        if re.search(r,fn): cats[c]=cats.get(c,0)+n;break
    else: cats["other"]=cats.get("other",0)+n
div=int(sys.argv[2]) if len(sys.argv)>2 else 1
print(f"total {total:,} Ir = {total/div:,.0f} per op")
for c,n in sorted(cats.items(),key=lambda x:-x[1]): print(f"  {c:26s} {n/total*100:5.1f}%  {n/div:8,.0f}/op")
