// The memory-bound cost of one decode step in the browser: a line-by-line port of
// specdec.cost_model.step_cost (t_0 = 0), with its refusals, shared by the roofline explorer
// (roofline_math.js) and the speedup curve (batch_speedup_math.js) so the two figures price a
// step with one formula. Python stays the reference: tests/test_widgets_js*.py run both modules in
// Node against specdec. No DOM here, so Node can import it.
//
// Python inlines this module once in front of whichever widget needs it, all in one scope: the names
// below (weightBytes, gemmFlops, stepCost) must not be declared again in a module inlined with it.
//
//   const c = stepCost(data.models["llama-3.1-8b"], data.gpus.H100, 1, 0);
//   c.t_W * 1e3   // 4.79..., one read of the weights in ms

// ModelSpec.weight_bytes: every weight, read once.
export function weightBytes(model) { return model.bytes_per_weight * model.n_params; }

// GPU.gemm_flops: the weight products' peak, fp8 when the model runs them so and the GPU has it.
export function gemmFlops(gpu, fp8) { return fp8 && gpu.flops_fp8 != null ? gpu.flops_fp8 : gpu.flops_bf16; }

// specdec.cost_model.step_cost: t_W, t_K, t_F (t_0 = 0) for (model, gpu, n_gpu, T_bar), with the same refusals.
export function stepCost(model, gpu, nGpu, T) {
  if (!Number.isInteger(nGpu) || nGpu < 1) throw new Error(`n_gpu must be a positive integer, got ${nGpu}`);
  if (!Number.isFinite(T) || T < 0) {
    throw new Error(`T_bar (mean cached context, tokens) must be a finite number >= 0, got ${T}`);
  }
  const bytesPerS = nGpu * gpu.bandwidth;
  const flopsPerS = nGpu * gpu.flops_bf16;                       // attention: bfloat16
  const gemmPerS = nGpu * gemmFlops(gpu, model.fp8_gemms);       // weight products: fp8 if the model runs them so
  return {
    t_W: weightBytes(model) / bytesPerS,
    t_K: T * model.kv_bytes_per_token / bytesPerS,
    t_F: 2 * model.n_active / gemmPerS + 4 * model.n_layers * model.d_attn * T / flopsPerS,
    t_0: 0.0,
  };
}
