"""The course library: cost models, toy models and samplers shared by chapters and widgets.

Conventions used in every module: `p` is the target's next-token distribution and `q`
the draft's; `gamma` is the draft length; `alpha` an acceptance probability; `n_bar`
the expected tokens per round; `t_W`, `t_K`, `t_F` the weight-read, cache-read and
per-token arithmetic times of the decode cost model (chapter 01). Importing this
package does nothing but define names; import the submodules you need.
"""
