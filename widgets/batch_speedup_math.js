// The speedup-at-batch model of chapter 06, in the browser: a line-by-line port of specdec.moe
// (pass_time, model_regime, model_fall_batch), specdec.batch_speedup and
// widgets.batch_speedup.batch_speedup_curve / _readout; step_cost is in cost_math.js, shared with
// chapter 01's roofline.
// Python stays the reference: tests/test_widgets_js.py runs this module in Node and compares it
// with specdec over hundreds of random settings. No DOM here, so Node can import it.
//
// A model and a GPU are the JSON the widget's Python side sends (dataclasses.asdict of
// specdec.model_specs.ModelSpec and specdec.hardware.GPU), never numbers copied by hand.
//
//   const curve = batchSpeedupCurve(data.models["llama-3.1-8b"], data.gpus.H100, 64, 3, 0.8, share, 1, data);
//   curve.speedupAt(64)   // 2.49...

import { fmtFixed, fmtG } from "./pyformat.js";
import { gemmFlops, stepCost, weightBytes } from "./cost_math.js";

export const B_MAX = 4096;

export function isMoe(model) { return model.n_experts > 0; }

// specdec.moe.experts_touched / weight_bytes_read: uniform routing of n tokens.
export function expertsTouched(E, k, n) { return E * (1.0 - Math.pow(1.0 - k / E, n)); }
export function weightBytesRead(model, n) {
  if (!isMoe(model)) return weightBytes(model);
  const share = expertsTouched(model.n_experts, model.experts_per_token, n) / model.n_experts;
  return model.bytes_per_weight * (model.n_params - model.n_routed_params + model.n_routed_params * share);
}
function weightTime(model, gpu, nGpu, n) { return weightBytesRead(model, n) / (nGpu * gpu.bandwidth); }

// specdec.moe.pass_time: t(B, k) = max(t_W(kB) + B t_K, k B t_F) (t_0 = 0).
export function passTime(model, gpu, B, k, T, nGpu) {
  const cost = stepCost(model, gpu, nGpu, T);
  if (!isMoe(model)) return Math.max(cost.t_W + B * cost.t_K, k * B * cost.t_F) + 0;
  const memory = weightTime(model, gpu, nGpu, k * B) + B * cost.t_K;
  return Math.max(memory, k * B * cost.t_F) + 0;
}

function excess(model, gpu, B, k, T, nGpu) {
  const cost = stepCost(model, gpu, nGpu, T);
  return k * B * cost.t_F - (weightTime(model, gpu, nGpu, k * B) + B * cost.t_K);
}

// specdec.moe.model_regime: 1, 2 or 3.
export function modelRegime(model, gpu, B, gamma, T, nGpu) {
  if (excess(model, gpu, B, gamma + 1, T, nGpu) <= 0) return 1;
  return excess(model, gpu, B, 1, T, nGpu) >= 0 ? 3 : 2;
}

// specdec.moe.model_fall_batch: the real batch up to which a pass over k tokens is memory-bound.
export function modelFallBatch(model, gpu, T, k, nGpu) {
  const cost = stepCost(model, gpu, nGpu, T);
  if (!isMoe(model)) {
    const ex = k * cost.t_F - cost.t_K;
    return ex <= 0 ? Infinity : cost.t_W / ex;
  }
  if (k * cost.t_F <= cost.t_K) return Infinity;
  let lo = 0.0, hi = 1.0;
  while (excess(model, gpu, hi, k, T, nGpu) <= 0) { lo = hi; hi = 2 * hi; }
  for (let i = 0; i < 100; i++) {
    const mid = 0.5 * (lo + hi);
    if (excess(model, gpu, mid, k, T, nGpu) <= 0) lo = mid; else hi = mid;
  }
  return lo;
}

// specdec.batch_speedup.critical_context: T_c(k), Infinity when never free.
export function criticalContext(model, gpu, k) {
  const ridge = gpu.flops_bf16 / gpu.bandwidth;
  const denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k;
  if (denominator <= 0) return Infinity;
  const weightRate = gpu.flops_bf16 / gemmFlops(gpu, model.fp8_gemms);
  return 2 * model.n_active * weightRate * k / denominator;
}

// specdec.batch_speedup.one_layer_drafter.
export function oneLayerDrafter(target, nParams) {
  return {
    name: `1-layer drafter (${fmtG(nParams / 1e9, 3)}B) for ${target.name}`, n_params: nParams, n_active: nParams,
    n_layers: 1, d_attn: target.d_attn, kv_bytes_per_token: target.kv_bytes_per_token / target.n_layers,
    bytes_per_weight: target.bytes_per_weight, fp8_gemms: false, n_experts: 0, experts_per_token: 0,
    n_routed_params: 0.0,
  };
}

// specdec.speedup_model.expected_tokens_iid: n_bar.
export function tokensPerRound(alpha, gamma) {
  if (alpha === 1.0) return gamma + 1;
  return (1.0 - Math.pow(alpha, gamma + 1)) / (1.0 - alpha);
}

// specdec.batch_speedup.drafter_cost_ratio: c(B).
export function drafterCostRatio(target, drafter, gpu, B, T, nGpu) {
  const d = stepCost(drafter, gpu, nGpu, T);
  const dStep = Math.max(d.t_W + B * d.t_K, 1 * B * d.t_F) + 0;
  return dStep / passTime(target, gpu, B, 1, T, nGpu);
}

// specdec.batch_speedup.speedup_at_batch (sequential drafting, t_0 = 0).
export function speedupAtBatch(target, gpu, B, T, gamma, alpha, drafter, nGpu) {
  const nBar = tokensPerRound(alpha, gamma);
  let roundTime = passTime(target, gpu, B, gamma + 1, T, nGpu);
  if (drafter) {
    const d = stepCost(drafter, gpu, nGpu, T);
    roundTime = roundTime + gamma * (Math.max(d.t_W + B * d.t_K, 1 * B * d.t_F) + 0);
  }
  return nBar * passTime(target, gpu, B, 1, T, nGpu) / roundTime;
}

// specdec.batch_speedup.max_batch_in_memory.
export function maxBatchInMemory(target, gpu, T, drafter, nGpu) {
  let free = nGpu * gpu.memory - weightBytes(target);
  let perSequence = T * target.kv_bytes_per_token;
  if (drafter) { free -= weightBytes(drafter); perSequence += T * drafter.kv_bytes_per_token; }
  return Math.max(0, Math.floor(free / perSequence));
}

// --- the curve: widgets.batch_speedup.batch_speedup_curve ------------------------------------------

// np.round(np.geomspace(1, B_MAX, n)): numpy computes 10**linspace(log10 a, log10 b), ends exact.
function batchGrid(n) {
  const lo = Math.log10(1), hi = Math.log10(B_MAX), step = (hi - lo) / (n - 1), out = [];
  for (let i = 0; i < n; i++) {
    const v = i === 0 ? 1 : i === n - 1 ? B_MAX : Math.pow(10, lo + i * step);
    out.push(roundHalfEven(v));
  }
  return out;
}
function roundHalfEven(v) {
  const r = Math.round(v);
  return Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The curve for one setting, or throws Error with the same message as Python's ValueError.
 *  `data` carries MAX_CONTEXT and REGIMES from specdec (keys as in MODELS). */
export function batchSpeedupCurve(modelKey, gpuKey, T, gamma, alpha, share, nGpu, data, nPoints = 160) {
  const model = data.models[modelKey], gpu = data.gpus[gpuKey];
  if (!(Number.isFinite(T) && T >= 1)) throw new Error(`the context must be at least 1 token, got ${T}`);
  const limit = data.max_context[modelKey];
  if (limit != null && T > limit) {
    throw new Error(`${model.name} supports at most ${fmtFixed(limit, 0, true)} tokens of context; ` +
                    `${fmtFixed(T, 0, true)} is longer`);
  }
  if (!(share >= 0 && share < 100)) {
    throw new Error(`the drafter's share of the target must be in [0, 100) %, got ${share}`);
  }
  const drafter = share === 0 ? null : oneLayerDrafter(model, share / 100 * model.n_active);
  if (weightBytes(model) + (drafter ? weightBytes(drafter) : 0) > nGpu * gpu.memory) {
    throw new Error(`${model.name}'s weights (${fmtFixed(weightBytes(model) / 1e9, 0)} GB) do not fit in ` +
                    `${nGpu}×${gpu.name} (${fmtFixed(nGpu * gpu.memory / 1e9, 0)} GB): use more GPUs`);
  }
  const fall = modelFallBatch(model, gpu, T, gamma + 1, nGpu);
  const compute = modelFallBatch(model, gpu, T, 1, nGpu);
  const set = new Set(batchGrid(nPoints));
  for (const b of [fall, compute]) {
    if (Number.isFinite(b) && b < B_MAX) {
      for (const d of [0, 1]) set.add(Math.min(Math.max(Math.floor(b) + d, 1), B_MAX));
    }
  }
  const B = [...set].sort((a, b) => a - b);
  const curve = {
    modelKey, gpuKey, model, gpu, nGpu, T, gamma, alpha, drafter, data, B,
    speedup: B.map((b) => speedupAtBatch(model, gpu, b, T, gamma, alpha, drafter, nGpu)),
    regime: B.map((b) => modelRegime(model, gpu, b, gamma, T, nGpu)),
    fallBatch: fall,
    computeBatch: compute,
    criticalContext: criticalContext(model, gpu, gamma + 1),
    maxBatch: maxBatchInMemory(model, gpu, T, drafter, nGpu),
    label: `${model.name}, ${nGpu}×${gpu.name}, T̄=${fmtFixed(T, 0, true)}, γ=${gamma}, α=${fmtG(alpha)}`,
  };
  curve.speedupAt = (b) => speedupAtBatch(model, gpu, b, T, gamma, alpha, drafter, nGpu);
  curve.regimeAt = (b) => modelRegime(model, gpu, b, gamma, T, nGpu);
  curve.verificationCost = (b) => passTime(model, gpu, b, gamma + 1, T, nGpu) / passTime(model, gpu, b, 1, T, nGpu);
  curve.limitingResource = (b) => limitingResource(curve, b);
  return curve;
}

function limitingResource(curve, B) {
  const cost = stepCost(curve.model, curve.gpu, curve.nGpu, curve.T);
  const reg = curve.regimeAt(B);
  if (reg === 1) {
    const weights = isMoe(curve.model) ? "expert and shared weight reads" : "weight reads";
    return `memory bandwidth: ${cost.t_W >= B * cost.t_K ? weights : "KV-cache reads"}`;
  }
  if (reg === 2) return "arithmetic of the verification pass (plain decoding still waits on memory)";
  return "arithmetic, for plain decoding and verification alike";
}

/** The regime's name as the figure and readout say it (a MoE's regime 1 is not free). */
export function regimeName(curve, reg) {
  return reg === 1 && isMoe(curve.model) ? curve.data.moe_regime_1 : curve.data.regimes[reg];
}

/** The readout under the figure: widgets.batch_speedup._readout, character for character. */
export function readout(curve, B) {
  const s = curve.speedupAt(B);
  const fall = curve.fallBatch === Infinity ? "at every batch" : `up to B ≈ ${fmtFixed(curve.fallBatch, 1, true)}`;
  let cTxt = "";
  if (curve.drafter) {
    const c = drafterCostRatio(curve.model, curve.drafter, curve.gpu, B, curve.T, curve.nGpu);
    cTxt = `; drafter step = ${fmtFixed(c, 3)} of a target step`;
  }
  const verdict = s > 1 ? "faster" : "slower";
  const name = regimeName(curve, curve.regimeAt(B));
  const moeModel = isMoe(curve.model);
  const free = moeModel ? `the pass stays memory-bound ${fall}` : `verification is free ${fall}`;
  const moe = moeModel
    ? "<br>mixture of experts: each pass reads the shared weights and the experts its tokens touch " +
      "(uniform routing; real routing touches fewer, so the speedup shown errs low)"
    : "";
  return `at <b>B = ${B}</b>: speedup <b>${fmtFixed(s, 2)}×</b> (${verdict} than plain decoding); ` +
    `regime: <b>${name}</b>; limiting resource: ${curve.limitingResource(B)}` +
    `${cTxt}; the verification pass costs ${fmtFixed(curve.verificationCost(B), 2)} plain steps.` +
    `<br>${free}; at most ${fmtFixed(curve.maxBatch, 0, true)} sequences of ` +
    `${fmtFixed(curve.T, 0, true)} tokens fit beside the weights.${moe}`;
}

/** The warning under the figure when the chosen batch does not fit ('' when it does). */
export function fitMessage(curve, B) {
  if (B <= curve.maxBatch) return "";
  return `a batch of ${B} does not fit: the caches of at most ${fmtFixed(curve.maxBatch, 0, true)} sequences of ` +
    `${fmtFixed(curve.T, 0, true)} tokens fit; use more GPUs or a shorter context`;
}
