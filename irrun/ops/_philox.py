"""Random bits as OpenVINO's RandomUniform and Multinomial draw them, vectorised.

Two generators, as in OpenVINO's reference (``phillox_generator``):

- **Philox 4x32-10** (``alignment="tensorflow"``): block ``i`` is the 10-round Philox
  permutation of the 128-bit counter ``[n_lo, n_hi, seed2_lo, seed2_hi]`` with the key
  ``[seed_lo, seed_hi]``, where ``n = start + i`` (a carry out of ``n`` goes into the
  ``seed2`` half). Each block gives 4 ``uint32``. All blocks are computed at once in
  ``uint64`` arithmetic (a product of two ``uint32`` fits).
- **MT19937** (``alignment="pytorch"``): PyTorch's Mersenne twister seeded with the low 32
  bits of ``seed`` (``init_genrand``); the tempered outputs in order. numpy's MT19937 is the
  same generator: its state is set from ``init_genrand`` and it draws the words.

The ``start`` of a Philox run is the state OpenVINO keeps between runs of the same op: each
run advances it by 256 per block drawn (``get_next_state``, for parity with TensorFlow's
``Reserve128Samples``).

Examples
--------
>>> [hex(int(v)) for v in philox_words(150, 10, 4)]
['0xe059be6b', '0x7aa7173a', '0x96f83b54', '0xd5790989']
"""

from __future__ import annotations

import numpy as np

__all__ = ["philox_words", "philox_blocks", "mersenne_words", "next_philox_start"]

_MASK32 = np.uint64(0xFFFFFFFF)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # key increments ("crush resistance" constants)
_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_ROUNDS = 10
#: How far one block moves the counter between runs (OpenVINO's ``m_skip_const``).
SKIP_PER_BLOCK = 256


def philox_blocks(count: int) -> int:
    """The number of 4-word Philox blocks that give ``count`` words."""
    return -(-count // 4)


def philox_words(seed: int, seed2: int, count: int, start: int = 0) -> np.ndarray:
    """The first ``count`` ``uint32`` words of the Philox stream of ``seed`` (the key) and
    ``seed2`` (the high counter half), from counter ``start``; a ``uint64`` array."""
    blocks = philox_blocks(count)
    n = (np.uint64(start % 2**64) + np.arange(blocks, dtype=np.uint64)).astype(np.uint64)
    # the 64-bit block counter wraps into seed2 (OpenVINO: ``if (++n == 0) ++counter``)
    wrapped = n < np.uint64(start % 2**64)
    high = (np.uint64(seed2 % 2**64) + wrapped.astype(np.uint64)).astype(np.uint64)
    c0, c1 = n & _MASK32, n >> np.uint64(32)
    c2, c3 = high & _MASK32, high >> np.uint64(32)
    k0, k1 = seed % 2**32, (seed >> 32) % 2**32
    for round_index in range(_ROUNDS):
        product0 = _M0 * c0
        product1 = _M1 * c2
        c0, c1, c2, c3 = (
            (product1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0),
            product1 & _MASK32,
            (product0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1),
            product0 & _MASK32,
        )
        if round_index < _ROUNDS - 1:
            k0, k1 = (k0 + _W0) % 2**32, (k1 + _W1) % 2**32
    return np.stack([c0, c1, c2, c3], axis=1).reshape(-1)[:count]


def next_philox_start(start: int, seed2: int, blocks: int) -> tuple[int, int]:
    """The ``(start, seed2)`` of the next run after one that drew ``blocks`` blocks."""
    skip = blocks * SKIP_PER_BLOCK % 2**64
    moved = (start + skip) % 2**64
    return moved, (seed2 + (1 if moved < skip else 0)) % 2**64


def mersenne_words(seed: int, count: int) -> np.ndarray:
    """The first ``count`` tempered MT19937 words of ``init_genrand(seed & 0xffffffff)``
    (PyTorch's CPU generator); a ``uint64`` array."""
    key = np.empty(624, np.uint64)
    key[0] = seed & 0xFFFFFFFF
    previous = int(key[0])
    for index in range(1, 624):  # the seeding recurrence is sequential (624 steps)
        previous = (1812433253 * (previous ^ (previous >> 30)) + index) & 0xFFFFFFFF
        key[index] = previous
    generator = np.random.MT19937()
    # position 624: the first draw twists the whole state, as PyTorch's ``m_left = 1``
    generator.state = {"bit_generator": "MT19937", "state": {"key": key.astype(np.uint32),
                                                            "pos": 624}}  # fmt: skip
    return generator.random_raw(count).astype(np.uint64)
