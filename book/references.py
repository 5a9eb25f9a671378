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


def references_page() -> str:
    """The references page in MyST markdown: every work, author-year, with its link."""
    rows = []
    for w in sorted(WORKS, key=lambda w: (w.authors.lower(), w.year)):
        title = html.escape(w.title)
        linked = f'<a href="{html.escape(w.link)}">{title}</a>' if w.link else title
        rows.append(f'<p id="{w.anchor}">{html.escape(w.authors)} ({w.year}). <i>{linked}</i>. '
                    f"{html.escape(w.venue)}.</p>")
    return ("# References\n\nThe papers and books the chapters cite, by first author. A citation in a chapter "
            "links here; each title links to the paper (arXiv or DOI) where it has one.\n\n"
            '<div class="course-references">\n\n' + "\n".join(rows) + "\n\n</div>\n")
