"""Wrong answers to the chapter 02 exercise, greedy_speculative_generate.

Each value replaces the whole solution cell with that grade_id. Every entry must lose
points under the hidden tests, while the unmodified notebook gets full marks. The exercise
is deterministic (greedy decoding, no sampling), so no chi-square statistics apply: each
comment names the test cells that catch the bug and the first case that exposes it.
"""

_HEADER = '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = list(prompt)
    end = len(tokens) + n_new
    n_target_calls = 0
'''

_DEF = "def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):"

# The course library has no greedy speculative loop; the nearest thing is specdec.toy_lm.plain_greedy, which
# writes the right tokens. The three ways of handing the text to it (the library's function as it is,
# renamed; a thin wrapper; a call through the module), with a made-up call count, pass the visible check of
# test_matches_plain_greedy and are refused by the hidden assert_own_work check of every test cell.
_DELEGATION = {
    "delegate_same_object": f"""from specdec.toy_lm import plain_greedy

{_DEF}
    write = plain_greedy                      # the library's function object, unchanged
    return write(target_logits, list(prompt), n_new), -(-n_new // (gamma + 1))
""",
    "delegate_thin_wrapper": f"""from specdec.toy_lm import plain_greedy

{_DEF}
    return plain_greedy(target_logits, list(prompt), n_new), -(-n_new // (gamma + 1))
""",
    "delegate_through_module": f"""import specdec.toy_lm as toy_lm_lib

{_DEF}
    return toy_lm_lib.plain_greedy(target_logits, list(prompt), n_new), -(-n_new // (gamma + 1))
""",
}

WRONG = {
    "ex_greedy_speculative_generate": {
        **_DELEGATION,
        # The textbook's placeholder: no speculation, one target call per token. Right text, n_new calls.
        # Caught by test_fewer_calls_with_good_draft (seed 0, noise 0, gamma 1, n_new 20: 20 calls instead
        # of 10) and test_edge_cases (seed 4, noise 0, gamma 1, n_new 15: 15 calls instead of 8).
        "placeholder_no_speculation": _HEADER + '''    while len(tokens) < end:
        tokens.append(int(np.argmax(target_logits(tokens)[-1])))
        n_target_calls += 1
    return tokens, n_target_calls
''',
        # No bonus token: when every draft is kept the round emits only the drafts.
        # Right text, but a perfect draft needs ceil(n/gamma) calls. Caught by test_fewer_calls_with_good_draft
        # (noise 0, gamma 1, n_new 20: 20 calls instead of 10) and test_edge_cases (gamma 1: 15 instead of 8).
        "no_bonus_token": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        if J == k and k > 0:
            tokens += drafts
        else:
            tokens += drafts[:J] + [choices[J]]
    return tokens, n_target_calls
''',
        # At the first mismatch, appends the draft's token instead of the target's correction.
        # Caught by test_matches_plain_greedy (seed 0, noise 0.5, gamma 1: new token 1 is 13, greedy gives 17)
        # and test_edge_cases (seed 4, noise 0.5, gamma 1: new token 1 is 16 instead of 29).
        "emits_draft_at_mismatch": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J + 1] if J < k else drafts + [choices[k]]
    return tokens, n_target_calls
''',
        # Verifies each draft with its own target call (one call per position instead of one per round).
        # Right text, but about n_new calls. Caught by test_one_target_call_per_round (seed 0, noise 0,
        # gamma 3: draft call 2 of round 1 reads a draft the target call after it does not contain),
        # test_fewer_calls_with_good_draft (noise 0, gamma 1, n_new 20: 20 calls instead of 10) and
        # test_edge_cases (gamma 1: 15 calls instead of 8).
        "target_call_per_token": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        J = 0
        while True:
            choice = int(np.argmax(target_logits(tokens + drafts[:J])[-1]))
            n_target_calls += 1
            if J < k and drafts[J] == choice:
                J += 1
                continue
            tokens += drafts[:J] + [choice]
            break
    return tokens, n_target_calls
''',
        # Off by one in the rows: takes rows from len(tokens) on, so z_i is read one position too late
        # (the choice after the first i drafts is used to check draft i).
        # Caught by test_matches_plain_greedy (seed 0, noise 0, gamma 1: new token 1 is 9, greedy gives 17),
        # test_fewer_calls_with_good_draft (20 calls instead of 10) and test_edge_cases.
        "row_off_by_one": _HEADER + '''    while len(tokens) < end:
        drafts = []
        for _ in range(gamma):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens):]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < len(choices) - 1 and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens[:end], n_target_calls
''',
        # Never truncates: drafts gamma tokens every round and returns whatever the last round emitted.
        # Caught by test_length_and_prompt (seed 1, noise 0, gamma 3, n_new 10: 12 new tokens instead of 10),
        # test_matches_plain_greedy (noise 0, gamma 1, n_new 25: 26 new tokens) and test_edge_cases.
        "overshoots_n_new": _HEADER + '''    while len(tokens) < end:
        drafts = []
        for _ in range(gamma):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < gamma and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, n_target_calls
''',
        # Returns a made-up count (the ideal ceil(n_new / (gamma + 1))) instead of counting calls.
        # Right text; caught by test_one_target_call_per_round (seed 1, noise 0.5, gamma 4, n_new 30:
        # returned 6, the target was called more often).
        "count_not_counted": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, -(-n_new // (gamma + 1))
''',
        # Leaves out the last committed token: the target reads tokens[:-1] + drafts, as if that token
        # were already cached. Every row is one position early and reads the wrong context.
        # Caught by test_matches_plain_greedy (seed 0, noise 0, gamma 1: new token 1 is 26, greedy gives 17),
        # test_one_target_call_per_round (the target does not read the committed text), test_fewer_calls_
        # with_good_draft and test_edge_cases.
        "skips_last_committed_token": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        context = tokens[:-1] if len(tokens) > 1 else tokens
        rows = target_logits(context + drafts)[len(context) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and J < len(choices) - 1 and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, n_target_calls
''',
        # Drafts without feeding earlier drafts back: every guess of a round is the draft's next token
        # after the committed text, so the same token is guessed gamma times. Right text, poor yield.
        # Caught by test_one_target_call_per_round (draft call 2 does not read draft 1),
        # test_fewer_calls_with_good_draft (noise 0, gamma 3, n_new 20: 10 calls instead of 5) and
        # test_edge_cases (noise 0, gamma 5, n_new 3: 2 calls instead of 1).
        "drafts_not_fed_back": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = [int(np.argmax(draft_next(tokens))) for _ in range(k)]
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, n_target_calls
''',
        # Keeps every draft that matches the target's choice at its own position, even after a mismatch,
        # replacing only the mismatched ones by the target's choices (then emits the bonus).
        # Caught by test_matches_plain_greedy (seed 0, noise 0.5, gamma 1: new token 2 is 17, greedy gives 9)
        # and test_edge_cases (seed 4, noise 0.5, gamma 1).
        "keeps_matches_after_mismatch": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        tokens += [x if x == z else z for x, z in zip(drafts, choices)] + [choices[k]]
    return tokens[:end], n_target_calls
''',
        # Takes the bonus token from the draft instead of the target's last row.
        # Right with a perfect draft; caught by test_matches_plain_greedy (seed 0, noise 0.5, gamma 1: new
        # token 10 is 3, greedy gives 30), test_one_target_call_per_round (a draft call after the last target
        # call is never verified) and test_edge_cases.
        "bonus_from_draft": _HEADER + '''    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        if J == k and k > 0:
            tokens += drafts + [int(np.argmax(draft_next(tokens + drafts)))]
        else:
            tokens += drafts[:J] + [choices[J]]
    return tokens, n_target_calls
''',
        # Appends to the caller's prompt list instead of a copy (tokens = prompt).
        # Right text and counts; caught by test_length_and_prompt (the caller's list [3, 14, 15] grows to
        # 13 tokens).
        "mutates_prompt": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = prompt
    end = len(tokens) + n_new
    n_target_calls = 0
    while len(tokens) < end:
        k = min(gamma, end - len(tokens) - 1)
        drafts = []
        for _ in range(k):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < k and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
    return tokens, n_target_calls
''',
        # A do-while loop: always runs one round, then truncates. With n_new = 0 it still calls the
        # target once and returns a count of 1. Caught by test_edge_cases (n_new = 0: 1 call instead of 0).
        "round_even_when_n_new_is_zero": _HEADER + '''    while True:
        drafts = []
        for _ in range(gamma):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        rows = target_logits(tokens + drafts)[len(tokens) - 1:]
        n_target_calls += 1
        choices = [int(z) for z in np.argmax(rows, axis=1)]
        J = 0
        while J < gamma and drafts[J] == choices[J]:
            J += 1
        tokens += drafts[:J] + [choices[J]]
        if len(tokens) >= end:
            break
    return tokens[:end], n_target_calls
''',
    },
}

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {f"ex_greedy_speculative_generate/{bug}": words for bug, words in {
    "placeholder_no_speculation": "Did you forget the bonus token",
    "no_bonus_token": "Did you forget the bonus token",
    "emits_draft_at_mismatch": "That is the draft's guess at this position",
    "bonus_from_draft": "write the target's choice, never the draft's",
    "row_off_by_one": "you read its rows one too late",
    "target_call_per_token": "call the target more than once per round",
    "drafts_not_fed_back": "followed by the 1 token(s) drafted before it",
    "overshoots_n_new": "Stop at exactly n_new",
    "count_not_counted": "Count the calls you actually make",
    "mutates_prompt": "the caller's prompt list was changed",
    "round_even_when_n_new_is_zero": "and no target call",
}.items()}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): every round drafts the full gamma, the agreements are found with one vectorised comparison,
# and the text is cut to n_new at the end; or a for loop that commits token by token and breaks at the
# first disagreement (or at the length limit).
RIGHT = {
    "ex_greedy_speculative_generate": {
        "full_gamma_vectorised_then_cut": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    if gamma < 1 or n_new < 0:
        raise ValueError("need gamma >= 1 and n_new >= 0")
    tokens = list(prompt)
    end = len(prompt) + n_new
    calls = 0
    while len(tokens) < end:
        drafts = []
        for _ in range(gamma):
            drafts.append(int(np.argmax(draft_next(tokens + drafts))))
        choices = np.argmax(target_logits(tokens + drafts), axis=-1)[len(tokens) - 1:]
        calls += 1
        agree = np.asarray(drafts) == choices[:gamma]
        J = gamma if agree.all() else int(np.argmin(agree))
        tokens = tokens + drafts[:J] + [int(choices[J])]
    return tokens[:end], calls
''',
        "commit_token_by_token": '''def greedy_speculative_generate(target_logits, draft_next, prompt, n_new, gamma):
    tokens = prompt[:]
    target_calls = 0
    remaining = n_new
    while remaining > 0:
        guesses = []
        context = tokens[:]
        for _ in range(min(gamma, remaining - 1)):
            nxt = int(np.argmax(draft_next(context)))
            guesses.append(nxt)
            context.append(nxt)
        logits = target_logits(context)
        target_calls += 1
        for i in range(len(guesses) + 1):
            best = int(np.argmax(logits[len(tokens) - 1]))
            tokens.append(best)
            remaining -= 1
            if i == len(guesses) or guesses[i] != best:
                break
    return tokens, target_calls
''',
    },
}
