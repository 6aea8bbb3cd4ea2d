#!/bin/sh
# npu-mixp: the automatic mixed-precision search on the classifier of
# tests/gen/mixp_fixtures.py, whose planted fragile tensor (fc3's output,
# one channel 400x larger) breaks plain int8. The criteria are measured
# against PyTorch's logits stored in test.npz. The search restores them
# with few ops in float (int16 with --keep int16), finds the smallest set
# that brute force over all 2^6 subsets finds, writes a --config npu-quant
# reads, and the same search run as shards and merged chooses the same.
. "$(dirname "$0")/lib.sh"
M=$DATA/mixp
fig() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }
kept() { sed -n 's/^kept in [a-z0-9]*: \([0-9]*\) of .*/\1/p' "$1"; }
set_of() { sed -n 's/^kept in [a-z0-9]*: [0-9]* of [0-9]* candidate ops:* *//p' "$1" | tr ' ' '\n' | sort | tr '\n' ' '; }

npu-import-onnx "$M/model.onnx" | npu-fuse --all -o "$T/f.ir" &&
	npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" -q -o "$T/q.ir" &&
	npu-eval "$T/q.ir" "$M/test.npz" >"$T/q.txt" && npu-eval "$T/f.ir" "$M/test.npz" >"$T/f.txt" &&
	awk -v c="$(fig cosine "$T/q.txt")" 'BEGIN { exit !(c < 0.9) }'
ok $? "plain int8: cosine $(fig cosine "$T/q.txt") with PyTorch's logits, $(fig top1_right "$T/q.txt")/200 right (float $(fig top1_right "$T/f.txt"))"

Q="-t int8 -c $M/calib.npz -d $M/test.npz"
npu-mixp "$T/f.ir" $Q --cosine 0.999 -o "$T/m.ir" --config-out "$T/m.yaml" --report "$T/m.json" >"$T/m.out" &&
	[ "$(kept "$T/m.out")" = 2 ] && [ "$(set_of "$T/m.out")" = "/fc3/Gemm /fc4/Gemm " ] &&
	npu-eval "$T/m.ir" "$M/test.npz" >"$T/m.txt" && awk -v c="$(fig cosine "$T/m.txt")" 'BEGIN { exit !(c >= 0.999) }' &&
	[ "$(fig top1_right "$T/m.txt")" -ge $(($(fig top1_right "$T/f.txt") - 1)) ]
ok $? "--cosine 0.999: fc3 and fc4 kept in float; cosine $(fig cosine "$T/m.txt"), $(fig top1_right "$T/m.txt")/200 right; $(sed -n 2p "$T/m.out")"

npu-dump "$T/m.ir" >"$T/d" && grep -q "/fc3/Gemm  *fully_connected  *f32" "$T/d" && grep -q "/fc4/Gemm  *fully_connected  *f32" "$T/d" &&
	grep -q "/fc5/Gemm  *fully_connected  *i8" "$T/d" && npu-dump --history "$T/m.ir" | tail -n 1 | grep -q "^npu-mixp "
ok $? "the IR written: fc3 and fc4 f32, the rest int8; npu-mixp in its history"

npu-quant "$T/f.ir" --target int8 --calib "$M/calib.npz" --config "$T/m.yaml" -q -o "$T/c.ir" &&
	npu-eval "$T/c.ir" "$M/test.npz" --print cosine >"$T/c" && [ "$(cat "$T/c")" = "$(fig cosine "$T/m.txt")" ]
ok $? "--config-out is an npu-quant --config file: the same graph (cosine $(cat "$T/c"))"

grep -q '"met": true' "$T/m.json" && grep -q '"kept": 2' "$T/m.json" && grep -q '"seconds": [0-9.]*' "$T/m.json" &&
	[ "$(grep -c '"decision": "float"' "$T/m.json")" = 2 ] &&
	grep -q '"node": "/fc5/Gemm".*"decision": "quantized", "why": "not needed' "$T/m.json" &&
	grep -q '"fully_connected": {"nodes": 6, "kept": 2}' "$T/m.json"
ok $? "--report: per op its statistics, decision and why; per op type; the metric and the time"

# brute force over all subsets (6 candidates: 64) finds the same smallest set
for c in "--cosine 0.999" "--cosine 0.99999" "--allclose 0,0.2,0.01" "--metric-cmd 'npu-eval {} $M/test.npz --print top1' --min 0.99 --keep int16"; do
	eval "npu-mixp \"\$T/f.ir\" \$Q $c" >"$T/g.out" && eval "npu-mixp \"\$T/f.ir\" \$Q $c --brute-force" >"$T/b.out" &&
		[ "$(kept "$T/g.out")" = "$(kept "$T/b.out")" ] && [ "$(set_of "$T/g.out")" = "$(set_of "$T/b.out")" ]
	ok $? "$c: the search keeps $(kept "$T/g.out") ops ($(set_of "$T/g.out")), as brute force"
done

# scale-out: shards run separately, merged, choose as the in-process run (-j 2)
A="--allclose 0,0.2,0.01"
npu-mixp "$T/f.ir" $Q $A -j 2 -o "$T/in.ir" --config-out "$T/in.yaml" >"$T/in.out" &&
	for k in 1 2 3; do npu-mixp "$T/f.ir" $Q $A --shard $k/3 -o "$T/shard$k.json" || exit 1; done &&
	npu-mixp "$T/f.ir" $Q $A --merge "$T/shard1.json" --merge "$T/shard2.json" --merge "$T/shard3.json" \
		-o "$T/mg.ir" --config-out "$T/mg.yaml" >"$T/mg.out" &&
	[ "$(set_of "$T/in.out")" = "$(set_of "$T/mg.out")" ] && cmp -s "$T/in.yaml" "$T/mg.yaml" &&
	npu-dump "$T/in.ir" >"$T/d1" && npu-dump "$T/mg.ir" >"$T/d2" && cmp -s "$T/d1" "$T/d2"
ok $? "--shard 1/3, 2/3, 3/3 then --merge: the same choice ($(set_of "$T/mg.out")), config and graph as in-process"
expect_fail 1 "^npu-mixp: error: --merge: no shard file has the candidate set of the 2 worst ops\$" \
	"a missing shard is named" -- npu-mixp "$T/f.ir" $Q $A --merge "$T/shard1.json" --merge "$T/shard2.json" -o "$T/out"
expect_fail 1 "^npu-mixp: .*shard1.json: error: made for another criterion" \
	"a shard of another criterion is refused" -- npu-mixp "$T/f.ir" $Q --cosine 0.9 --merge "$T/shard1.json" -o "$T/out"

# filters and forced nodes
npu-mixp "$T/f.ir" $Q --cosine 0.999 --fp32-nodes /fc3/Gemm --config-out "$T/fp.yaml" >"$T/fp.out" &&
	[ "$(set_of "$T/fp.out")" = "/fc4/Gemm " ] && grep -q '"/fc3/Gemm": float' "$T/fp.yaml" && grep -q '"/fc4/Gemm": float' "$T/fp.yaml"
ok $? "--fp32-nodes /fc3/Gemm: forced, and the search adds only fc4"
npu-mixp "$T/f.ir" $Q --cosine 0.999 --op-id-filter '/fc[3-6]/Gemm' --report "$T/flt.json" >"$T/flt.out" &&
	[ "$(set_of "$T/flt.out")" = "/fc3/Gemm /fc4/Gemm " ] && grep -q '"node": "/fc1/Gemm".*"why": "not in --op-id-filter"' "$T/flt.json"
ok $? "--op-id-filter with a pattern: candidates fc3..fc6 only"
expect_fail 1 "^npu-mixp: .*f.ir: error: cosine >= 0.999 is not met even with all 5 candidate ops kept in float" \
	"--op-id-bypass of a needed op: the criterion cannot be met (exit 1)" -- \
	npu-mixp "$T/f.ir" $Q --cosine 0.999 --op-id-bypass /fc3/Gemm -o "$T/out"
expect_fail 1 "^npu-mixp: .*f.ir: error: cosine >= 0.999 is not met even with all 0 candidate ops" \
	"--op-type-bypass fully_connected leaves no candidate" -- \
	npu-mixp "$T/f.ir" $Q --cosine 0.999 --op-type-bypass fully_connected -o "$T/out"

# manual mode: statistics only
npu-mixp "$T/f.ir" -t int8 -c "$M/calib.npz" --stats-only --report "$T/s.json" >"$T/s.out" &&
	[ "$(wc -l <"$T/s.out")" = 8 ] && sed -n 2p "$T/s.out" | grep -q "^   1  /fc4/Gemm  *fully_connected  *i8  *local SQNR" &&
	grep -q '"decision": "quantized", "why": "candidate (no search with --stats-only)"' "$T/s.json"
ok $? "--stats-only: one row per op, the worst local error (fc4) first"

# bad use
expect_fail 2 "^npu-mixp: give one criterion" "no criterion" -- npu-mixp "$T/f.ir" $Q -o "$T/out"
expect_fail 2 "^npu-mixp: --shard '3/2': expected K/N" "a bad --shard" -- npu-mixp "$T/f.ir" $Q $A --shard 3/2 -o "$T/out"
expect_fail 2 "^npu-mixp: --allclose '0.1': expected RTOL,ATOL,NTOL" "a bad --allclose" -- npu-mixp "$T/f.ir" $Q --allclose 0.1 -o "$T/out"
expect_fail 2 "^npu-mixp: -Q --config=x.yaml: npu-mixp sets it itself" "-Q --config" -- npu-mixp "$T/f.ir" $Q $A -Q --config=x.yaml -o "$T/out"
expect_fail 1 "^npu-mixp: .*f.ir: error: --fp32-nodes: no node 'nosuch'\$" "--fp32-nodes naming no node" -- \
	npu-mixp "$T/f.ir" $Q $A --fp32-nodes nosuch -o "$T/out"
expect_fail 1 "^npu-mixp: .*f.ir: error: .*npu-quant failed: npu-quant: .*nosuch" "npu-quant's own error, one line" -- \
	npu-mixp "$T/f.ir" -t nosuch -c "$M/calib.npz" -d "$M/test.npz" $A -o "$T/out"

done_testing
