"""Wrong answers to the exercise of chapter 07 (the adaptive slot scheduler).

Each value replaces the solution cell `ex_adaptive_slots`. Every entry must lose points under the
hidden tests, while the unmodified notebook gets full marks. The exercise is deterministic (no
sampling), so no chi-square statistics apply: each comment names the test cells that catch it.
"""
from tests.wrong_implementations.delegation import delegation_forms

WRONG = {
    "ex_adaptive_slots": {
        # Sorts every survival and tries every b (the optimum for any cost): it reads every entry first.
        # Same answers as the rule for convex costs, different on staircases. Caught by
        # test_adaptive_non_anticipating (reads past the first refused slot; staircase property).
        "try_every_b_reads_all": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    slots = sorted(((-float(survivals[r][i]), r, i) for r in range(B) for i in range(len(survivals[r]))))
    best_b, best_rate, tokens = 0, B / step_time(B), float(B)
    for b, (neg_a, r, i) in enumerate(slots, start=1):
        tokens -= neg_a
        rate = tokens / step_time(B + b)
        if rate > best_rate:
            best_b, best_rate = b, rate
    lengths = [0] * B
    for _, r, _ in slots[:best_b]:
        lengths[r] += 1
    return lengths
''',
        # The right rule, but it first copies every row into a list (reads everything).
        # Caught by test_adaptive_non_anticipating (visible and hidden read checks).
        "copies_rows_first": '''def adaptive_slots(survivals, step_time):
    rows = [list(row) for row in survivals]
    B = len(rows)
    lengths = [0] * B
    tokens, n = float(B), B
    while True:
        cands = [(rows[r][lengths[r]], -r) for r in range(B) if lengths[r] < len(rows[r])]
        if not cands:
            break
        a, neg_r = max(cands)
        if not (tokens + a) / step_time(n + 1) > tokens / step_time(n):
            break
        tokens, n = tokens + a, n + 1
        lengths[-neg_r] += 1
    return lengths
''',
        # Admits a slot unless it lowers the rate (>= instead of >): zero survivals on a flat cost are admitted.
        # Caught by test_adaptive_small ([[0, 0], [0]] -> [2, 1] instead of [0, 0]) and the fewest-slots check.
        "admits_ties": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        if (tokens + a) / step_time(n + 1) < tokens / step_time(n):
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Decides each request on its own (adds its drafts while they pay, against the others at 0 slots),
        # not in one global order. Over-spends when requests compete for the free tokens.
        # Caught by test_adaptive_optimal (brute force) and test_adaptive_server.
        "per_request_independent": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    for r in range(B):
        tokens, n = float(B), B
        while lengths[r] < len(survivals[r]):
            a = survivals[r][lengths[r]]
            if not (tokens + a) / step_time(n + 1) > tokens / step_time(n):
                break
            tokens, n = tokens + a, n + 1
            lengths[r] += 1
    return lengths
''',
        # Forgets the token every request contributes: E and n start at 0 (and the first slot always "raises").
        # Caught by test_adaptive_small (max(4, n) case), test_adaptive_optimal, test_adaptive_server.
        "forgets_base_tokens": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = 0.0, 0
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        if n > 0 and not (tokens + a) / step_time(max(n + 1, 1)) > tokens / step_time(max(n, 1)):
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Verifies only what is free: admits while the pass time does not grow, ignoring slots that pay
        # for their arithmetic. Caught by test_adaptive_optimal (brute force on random roofline costs).
        "free_slots_only": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    n = B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        if frontier[r] <= 0 or step_time(n + 1) > step_time(n):
            break
        n += 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Off by one in the answer: also counts the slot it turned down.
        # Caught by test_adaptive_small ([3, 1] instead of [2, 1]) and test_adaptive_optimal.
        "counts_refused_slot": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        lengths[r] += 1
        if not (tokens + a) / step_time(n + 1) > tokens / step_time(n):
            break
        tokens, n = tokens + a, n + 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Looks one slot ahead: admits slot i of a request only if slot i + 1 also looks promising
        # (reads the survival computed from draft i before deciding about it).
        # Caught by test_adaptive_non_anticipating (reads past the first refused slot) and test_adaptive_optimal.
        "peeks_one_ahead": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        nxt = survivals[r][lengths[r] + 1] if lengths[r] + 1 < len(survivals[r]) else 1.0
        if nxt < 0.2 or not (tokens + a) / step_time(n + 1) > tokens / step_time(n):
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Admits a positive-survival slot that leaves the rate exactly unchanged (stops only when a <= 0 or the rate
        # falls). Passes the zero-survival case; caught by test_adaptive_small (hidden exact ties: [[1.0, 1.0]] with
        # step n -> [2], [[0.875, 0.5], [0.625]] -> [2, 1], [[0.25], [1.0]] -> [1, 1]); it passes every other cell, the
        # brute-force fewest-slots check included (random survivals almost never tie exactly).
        "admits_equal_rate_positive": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        new_rate, old_rate = (tokens + a) / step_time(n + 1), tokens / step_time(n)
        if a <= 0 or new_rate < old_rate:
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Compares with a tolerance (new_rate > old_rate - 1e-12): exact ties are admitted.
        # Caught by test_adaptive_small (zero survivals on a flat cost, and the hidden exact ties).
        "tolerance_admits_ties": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        new_rate, old_rate = (tokens + a) / step_time(n + 1), tokens / step_time(n)
        if not new_rate > old_rate - 1e-12:
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Breaks ties between requests towards the higher index. Caught by test_adaptive_small (hidden:
        # [[0.5, 0.5], [0.5]] with a step at n = 4 gives [0, 1] instead of [1, 0]).
        "ties_to_later_request": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], s))
        a = frontier[r]
        new_rate, old_rate = (tokens + a) / step_time(n + 1), tokens / step_time(n)
        if not new_rate > old_rate:
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return lengths
''',
        # Right counts, wrong type: a NumPy array. Caught by test_adaptive_small (hidden: a Python list of ints).
        "returns_numpy_array": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        new_rate, old_rate = (tokens + a) / step_time(n + 1), tokens / step_time(n)
        if not new_rate > old_rate:
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    return np.array(lengths)
''',
        # Trims each caller's row to its verified prefix in place (a 'helpful' mutation). Caught by
        # test_adaptive_small (hidden: the survivals must come back untouched) and, on RecordingRow, by the other cells.
        "trims_rows_in_place": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    frontier = {r: survivals[r][0] for r in range(B) if len(survivals[r]) > 0}
    while frontier:
        r = max(frontier, key=lambda s: (frontier[s], -s))
        a = frontier[r]
        new_rate, old_rate = (tokens + a) / step_time(n + 1), tokens / step_time(n)
        if not new_rate > old_rate:
            break
        tokens, n = tokens + a, n + 1
        lengths[r] += 1
        if lengths[r] < len(survivals[r]):
            frontier[r] = survivals[r][lengths[r]]
        else:
            del frontier[r]
    for r in range(B):
        del survivals[r][lengths[r]:]
    return lengths
''',
        **delegation_forms("def adaptive_slots(survivals, step_time):", "specdec.adaptive", "greedy_slot_schedule"),
    },
}

# Requests in index order with one running rate: request 0 admits its drafts while they raise the rate, then
# request 1, ... It checks the rate, but not in the global order, so a later request's better slot loses to an
# earlier request's worse one. Caught by test_adaptive_optimal and test_adaptive_global_order_staircase.
WRONG["ex_adaptive_slots"]["request_order_running_rate"] = '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    lengths = [0] * B
    tokens, n = float(B), B
    for r in range(B):
        while lengths[r] < len(survivals[r]):
            a = survivals[r][lengths[r]]
            if not (tokens + a) / step_time(n + 1) > tokens / step_time(n):
                break
            tokens, n = tokens + a, n + 1
            lengths[r] += 1
    return lengths
'''

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {f"ex_adaptive_slots/{bug}": words for bug, words in {
    "per_request_independent": "Are you deciding request by request?",
    "request_order_running_rate": "Are you deciding request by request?",
    "forgets_base_tokens": "start at B = 2",
    "peeks_one_ahead": "never look past the first position you turn down",
    "try_every_b_reads_all": "never look past the first position you turn down",
    "copies_rows_first": "never look past the first position you turn down",
    "admits_ties": "does not strictly rise",
    "admits_equal_rate_positive": "the same rate",
    "tolerance_admits_ties": "does not strictly rise",
    "ties_to_later_request": "the lower index goes first",
    "returns_numpy_array": "return a Python list",
    "trims_rows_in_place": "changed its input",
}.items()}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): a heap of (-survival, request) for the frontier, comparing the rates as quotients; a plain
# scan of the requests for the best next slot each time, comparing cross-multiplied rates.
RIGHT = {
    "ex_adaptive_slots": {
        "heap_and_quotients": '''import heapq


def adaptive_slots(survivals, step_time):
    B = len(survivals)
    slots = [0] * B
    heap = [(-survivals[r][0], r) for r in range(B) if len(survivals[r]) > 0]
    heapq.heapify(heap)
    n = B
    expected = float(B)
    rate = expected / step_time(n)
    while heap:
        neg_a, r = heapq.heappop(heap)
        new_rate = (expected - neg_a) / step_time(n + 1)
        if new_rate <= rate:
            break
        expected, n, rate = expected - neg_a, n + 1, new_rate
        slots[r] += 1
        if slots[r] < len(survivals[r]):
            heapq.heappush(heap, (-survivals[r][slots[r]], r))
    return slots
''',
        "scan_for_best": '''def adaptive_slots(survivals, step_time):
    B = len(survivals)
    l = [0] * B
    nxt = [survivals[r][0] if len(survivals[r]) else None for r in range(B)]
    num, n = B, B
    while True:
        best = None
        for r in range(B):
            if nxt[r] is not None and (best is None or nxt[r] > nxt[best]):
                best = r
        if best is None:
            break
        if (num + nxt[best]) * step_time(n) <= num * step_time(n + 1):
            break
        num += nxt[best]
        n += 1
        l[best] += 1
        nxt[best] = survivals[best][l[best]] if l[best] < len(survivals[best]) else None
    return l
''',
    },
}
