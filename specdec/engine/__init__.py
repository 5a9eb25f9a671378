"""A speculative decoding engine for Hugging Face causal language models (GPT-2 family first).

Small modules that read as the verbs of a round (batch size 1 for the engine itself; the
batched verifier handles whole batches):

- `processing`: logits -> the distribution a model samples from (temperature, top-k, top-p),
  applied identically to the target's `p` and the draft's `q`;
- `prefill`: one forward pass over new tokens on top of a KV cache, whatever name the installed
  transformers gives the cache argument;
- `draft`: gamma draft steps on the draft's cache, returning the drafts and the exact rows `q`
  they were sampled from;
- `verify`: the exact rule for one sequence (greedy, or sampling through `batched`);
- `batched`: verification of a whole batch in PyTorch with no Python loop over sequences;
- `rollback`: crop a KV cache back to the committed tokens (across transformers versions);
- `stats`: per-round statistics (accepted-length histogram, survival per position, n_bar);
- `generate`: the loop that ties them together, and plain decoding as the baseline;
- `timing`: the timing protocol (`robust_time`) and pass times measured with it (interleaved,
  synchronized, with a spread), on dynamic or static caches, eager or replayed from CUDA graphs;
- `clock`: the forward-call timer (passes counted and timed inside whole runs);
- `measure`: the runs every measurement makes (plain, speculative, Hugging Face), timed alike,
  and the costs read from them; `prediction`: chapter 05's formulas fed with those numbers;
- `models`: GPT-2 pair loading.

Devices: p, q, the drafts and the random generator stay where the models are for the whole
round; a generator on another device is refused with a ValueError. The batch-1 loop reads one
thing back to the host per round (the emitted tokens), because it must know what to commit.

Importing this package imports nothing heavy; import the submodules you need.
"""
