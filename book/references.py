"""The works the chapters cite, as one references page with links, and citations in the text linked to it.

A chapter cites in author-year form ("Leviathan et al. (2023)", "Chen et al. 2023", "Leviathan,
Kalman, Matias (2023)"). `link_citations` turns each citation whose first author and year name an
entry below into a link to that entry on `references.html`; `references_page` writes the page.
Only works with a stable identifier get a link (arXiv or DOI); the rest are listed as text.

    >>> link_citations("As Leviathan et al. (2023) show.")
    'As <a class="course-cite" href="references.html#ref-leviathan-2023">Leviathan et al. (2023)</a> show.'
    >>> link_citations("(Chen et al. 2023)")
    '(<a class="course-cite" href="references.html#ref-chen-2023">Chen et al. 2023</a>)'
    >>> link_citations("Someone (1999) said.")
    'Someone (1999) said.'
    >>> "arxiv.org/abs/2211.17192" in references_page()
    True
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Work:
    key: str          # first author's surname as the chapters write it
    year: str
    authors: str
    title: str
    venue: str
    link: str = ""    # https://arxiv.org/abs/... or https://doi.org/...

    @property
    def anchor(self) -> str:
        return f"ref-{re.sub(r'[^a-z0-9]+', '-', self.key.lower()).strip('-')}-{self.year}"


WORKS = (
    Work("Leviathan", "2023", "Leviathan, Y., Kalman, M., Matias, Y.",
         "Fast Inference from Transformers via Speculative Decoding", "ICML 2023",
         "https://arxiv.org/abs/2211.17192"),
    Work("Chen", "2023", "Chen, C., Borgeaud, S., Irving, G., Lespiau, J.-B., Sifre, L., Jumper, J.",
         "Accelerating Large Language Model Decoding with Speculative Sampling", "arXiv",
         "https://arxiv.org/abs/2302.01318"),
    Work("Williams", "2009", "Williams, S., Waterman, A., Patterson, D.",
         "Roofline: An Insightful Visual Performance Model for Multicore Architectures",
         "Communications of the ACM 52(4)", "https://doi.org/10.1145/1498765.1498785"),
    Work("Pope", "2023", "Pope, R., et al.", "Efficiently Scaling Transformer Inference", "MLSys 2023",
         "https://arxiv.org/abs/2211.05102"),
    Work("Ainslie", "2023", "Ainslie, J., et al.",
         "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints", "EMNLP 2023",
         "https://arxiv.org/abs/2305.13245"),
    Work("DeepSeek-AI", "2024", "DeepSeek-AI", "DeepSeek-V3 Technical Report", "arXiv",
         "https://arxiv.org/abs/2412.19437"),
    Work("Stern", "2018", "Stern, M., Shazeer, N., Uszkoreit, J.",
         "Blockwise Parallel Decoding for Deep Autoregressive Models", "NeurIPS 2018",
         "https://arxiv.org/abs/1811.03115"),
    Work("Sun", "2023", "Sun, Z., et al.", "SpecTr: Fast Speculative Decoding via Optimal Transport",
         "NeurIPS 2023", "https://arxiv.org/abs/2310.15141"),
    Work("Zhou", "2024", "Zhou, Y., et al.",
         "DistillSpec: Improving Speculative Decoding via Knowledge Distillation", "ICLR 2024",
         "https://arxiv.org/abs/2310.08461"),
    Work("Holtzman", "2020", "Holtzman, A., Buys, J., Du, L., Forbes, M., Choi, Y.",
         "The Curious Case of Neural Text Degeneration", "ICLR 2020", "https://arxiv.org/abs/1904.09751"),
    Work("Cover", "2006", "Cover, T., Thomas, J.", "Elements of Information Theory (2nd ed.)", "Wiley",
         "https://doi.org/10.1002/047174882X"),
    Work("Levin", "2017", "Levin, D., Peres, Y., Wilmer, E.", "Markov Chains and Mixing Times (2nd ed.)",
         "American Mathematical Society"),
    Work("Cai", "2024", "Cai, T., et al.",
         "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads", "ICML 2024",
         "https://arxiv.org/abs/2401.10774"),
    Work("Li", "2024", "Li, Y., Wei, F., Zhang, C., Zhang, H.",
         "EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty", "ICML 2024",
         "https://arxiv.org/abs/2401.15077"),
    Work("Li", "2025", "Li, Y., Wei, F., Zhang, C., Zhang, H.",
         "EAGLE-3: Scaling up Inference Acceleration of Large Language Models via Training-Time Test",
         "arXiv", "https://arxiv.org/abs/2503.01840"),
    Work("Elhoushi", "2024", "Elhoushi, M., et al.",
         "LayerSkip: Enabling Early Exit Inference and Self-Speculative Decoding", "ACL 2024",
         "https://arxiv.org/abs/2404.16710"),
    Work("Sadhukhan", "2024", "Sadhukhan, R., et al.",
         "MagicDec: Breaking the Latency-Throughput Tradeoff for Long Context Generation with Speculative Decoding",
         "arXiv", "https://arxiv.org/abs/2408.11049"),
    Work("Timor", "2025", "Timor, N., et al.",
         "Accelerating LLM Inference with Lossless Speculative Decoding Algorithms for Heterogeneous Vocabularies",
         "ICML 2025", "https://arxiv.org/abs/2502.05202"),
    Work("Miao", "2024", "Miao, X., et al.",
         "SpecInfer: Accelerating Generative Large Language Model Serving with Tree-based Speculative Inference "
         "and Verification", "ASPLOS 2024", "https://arxiv.org/abs/2305.09781"),
    Work("Kwon", "2023", "Kwon, W., et al.",
         "Efficient Memory Management for Large Language Model Serving with PagedAttention", "SOSP 2023",
         "https://arxiv.org/abs/2309.06180"),
    Work("Gloeckle", "2024", "Gloeckle, F., et al.", "Better & Faster Large Language Models via Multi-token Prediction",
         "ICML 2024", "https://arxiv.org/abs/2404.19737"),
    Work("Fu", "2024", "Fu, Y., Bailis, P., Stoica, I., Zhang, H.",
         "Break the Sequential Dependency of LLM Inference Using Lookahead Decoding", "ICML 2024",
         "https://arxiv.org/abs/2402.02057"),
    Work("Oliaro", "2024", "Oliaro, G., et al.", "SuffixDecoding: A Model-Free Approach to Speeding Up Large "
         "Language Model Inference", "arXiv", "https://arxiv.org/abs/2411.04975"),
    Work("Dao", "2023", "Dao, T.", "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning",
         "ICLR 2024", "https://arxiv.org/abs/2307.08691"),
    Work("Hinton", "2015", "Hinton, G., Vinyals, O., Dean, J.", "Distilling the Knowledge in a Neural Network",
         "NIPS 2014 Deep Learning Workshop", "https://arxiv.org/abs/1503.02531"),
    Work("Radford", "2019", "Radford, A., et al.", "Language Models are Unsupervised Multitask Learners",
         "OpenAI technical report"),
    Work("Goldberg", "1991", "Goldberg, D.", "What Every Computer Scientist Should Know About Floating-Point "
         "Arithmetic", "ACM Computing Surveys 23(1)", "https://doi.org/10.1145/103162.103163"),
    Work("Liu", "2024", "Liu, X., et al.", "Optimizing Speculative Decoding for Serving Large Language Models "
         "Using Goodput", "arXiv", "https://arxiv.org/abs/2406.14066"),
    Work("Huang", "2024", "Huang, K., Guo, X., Wang, M.", "SpecDec++: Boosting Speculative Decoding via Adaptive "
         "Candidate Lengths", "arXiv", "https://arxiv.org/abs/2405.19715"),
    Work("DeepSeek-AI", "2025", "DeepSeek-AI", "DeepSeek-V3.2: Pushing the Frontier of Open Large Language Models",
         "technical report"),
)

_BY_KEY = {(w.key, w.year): w for w in WORKS}
_NAMES = "|".join(sorted({re.escape(w.key) for w in WORKS}, key=len, reverse=True))
# "Leviathan et al. (2023)", "Chen et al. 2023", "Leviathan, Kalman, Matias (2023)", "DeepSeek-AI (2024)",
# "Hinton, Vinyals & Dean (2015)": a first author, up to three more names, then the year.
_CITATION = re.compile(
    rf"(?<![\w/#-])(?P<name>{_NAMES})(?P<rest>(?: et al\.)?(?:,? (?:and |& )?[A-Z][\w'\-]+){{0,3}},? \(?)"
    rf"(?P<year>(?:19|20)\d\d)(?P<close>\)?)(?![\w])")


def link_citations(markdown: str) -> str:
    """`markdown` with each author-year citation of a listed work linked to its entry (code spans,
    math and existing links left alone)."""
    def link(m):
        work = _BY_KEY.get((m.group("name"), m.group("year")))
        if work is None:
            return m.group(0)
        text, after = m.group(0), ""
        if m.group("close") and "(" not in m.group("rest"):      # "(Chen et al. 2023)": keep the ")" outside
            text, after = text[:-1], ")"
        return f'<a class="course-cite" href="references.html#{work.anchor}">{text}</a>{after}'

    # Leave code, math and links as they are: split them out, link the rest.
    pieces = re.split(r"(`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\[[^\]]*\]\([^)]*\)|<a\b.*?</a>)", markdown, flags=re.S)
    return "".join(p if i % 2 else _CITATION.sub(link, p) for i, p in enumerate(pieces))


# Where engines keep their code and docs: a chapter's claim about an engine links to one of these.
ENGINES = {
    "vLLM": ("github.com/vllm-project/vllm", "docs.vllm.ai", "blog.vllm.ai"),
    "SGLang": ("github.com/sgl-project/sglang", "docs.sglang.ai", "docs.sglang.io"),
    "TensorRT-LLM": ("github.com/NVIDIA/TensorRT-LLM", "nvidia.github.io/TensorRT-LLM"),
    "transformers": ("github.com/huggingface/transformers", "huggingface.co/docs/transformers"),
    "nbgrader": ("github.com/jupyter/nbgrader", "nbgrader.readthedocs.io"),
    "JupyterHub": ("github.com/jupyterhub/jupyterhub", "jupyterhub.readthedocs.io"),
}
_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<url>https?://[^)\s]+)\)")


@dataclass(frozen=True)
class EngineSource:
    engine: str
    text: str          # the link's words in the chapter
    url: str
    chapters: tuple[str, ...]


def engine_of(url: str) -> str | None:
    """The engine whose code or docs `url` points into, or None.

    >>> engine_of("https://github.com/vllm-project/vllm/pull/12345")
    'vLLM'
    >>> engine_of("https://arxiv.org/abs/2211.17192") is None
    True
    """
    bare = re.sub(r"^https?://(www\.)?", "", url)
    for engine, places in ENGINES.items():
        if any(bare == place or bare.startswith(place + "/") for place in places):
            return engine
    return None


def engine_sources(chapters: dict[str, str]) -> list[EngineSource]:
    """Every link to an engine's code or docs in `chapters` ({name: Markdown}), once per URL, with the
    chapters that cite it, sorted by engine and URL.

    >>> engine_sources({"01": "as [vLLM's runner](https://github.com/vllm-project/vllm/blob/main/x.py) does",
    ...                 "02": "[again](https://github.com/vllm-project/vllm/blob/main/x.py), [paper](https://arxiv.org/abs/1)"})
    [EngineSource(engine='vLLM', text="vLLM's runner", url='https://github.com/vllm-project/vllm/blob/main/x.py', chapters=('01', '02'))]
    """
    found: dict[str, EngineSource] = {}
    for name, markdown in chapters.items():
        for m in _LINK.finditer(markdown):
            engine = engine_of(m.group("url"))
            if engine is None:
                continue
            seen = found.get(m.group("url"))
            cited = (seen.chapters if seen else ()) + ((name,) if not seen or name not in seen.chapters else ())
            found[m.group("url")] = EngineSource(engine, seen.text if seen else m.group("text"), m.group("url"), cited)
    return sorted(found.values(), key=lambda s: (list(ENGINES).index(s.engine), s.url))


def _engine_section(chapters: dict[str, str]) -> str:
    sources = engine_sources(chapters)
    if not sources:
        return ""
    parts = ["\n## Engine code and documentation\n\nWhat the chapters say engines do was read in their code, "
             "merged pull requests, issues or documentation, on the date the chapter gives (\"as of\"). "
             "Engines change quickly: follow the link to see what holds today.\n"]
    for engine in ENGINES:
        rows = [s for s in sources if s.engine == engine]
        if rows:
            parts.append(f"\n### {engine}\n")
            parts += [f'<p class="course-engine-source"><a href="{html.escape(s.url)}">{html.escape(s.text)}</a> '
                      f'<span class="course-engine-url">({html.escape(s.url)})</span>. Cited in '
                      f'{", ".join(html.escape(c) for c in s.chapters)}.</p>' for s in rows]
    return "\n".join(parts) + "\n"


def references_page(chapters: dict[str, str] | None = None) -> str:
    """The references page in MyST markdown: every work, author-year, with its link; then every link
    to an engine's code or docs found in `chapters` ({name: Markdown of the chapter}), by engine."""
    rows = []
    for w in sorted(WORKS, key=lambda w: (w.authors.lower(), w.year)):
        title = html.escape(w.title)
        linked = f'<a href="{html.escape(w.link)}">{title}</a>' if w.link else title
        rows.append(f'<p id="{w.anchor}">{html.escape(w.authors)} ({w.year}). <i>{linked}</i>. '
                    f"{html.escape(w.venue)}.</p>")
    return ("# References\n\nThe papers and books the chapters cite, by first author. A citation in a chapter "
            "links here; each title links to the paper (arXiv or DOI) where it has one.\n\n"
            '<div class="course-references">\n\n' + "\n".join(rows) + "\n\n</div>\n" + _engine_section(chapters or {}))
