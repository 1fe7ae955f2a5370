"""Writes candidates.txt: the strings UuidProbe.java hands to Kafka's Uuid.fromString, as hex of
their UTF-8 bytes. Hand-picked edge cases (lengths around 22 and 24, padding, alphabets, trailing
bits, whitespace, non-ASCII), then 400 random strings over a small alphabet and 60 well-formed
ones (22 base64url characters, every third with ``==``), seeded."""
import random

Z = "A" * 22
HAND = [
    "", "A", "AA", "AAA", "AAAA", "A" * 20, "A" * 21, Z, "A" * 23, "A" * 24, "A" * 25, "A" * 26,
    "AAAAAAAAAAA!!!!AAAAAAAAAAA", "AAAAAAAAAAA!AAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAQ", "AAAAAAAAAAAAAAAAAAAAAB",
    "AAAAAAAAAAAAAAAAAAAAA_", "AAAAAAAAAAAAAAAAAAAAA-", "_____________________w", "______________________",
    "----------------------", "nKF6yzhxS-2F12yYx2aYRw", "ANbHvzbFTM6KJXvFvFmVnA", "P3rPQ8Z1TtKw4Z8cnYlUtQ",
    "MkU3OEVBNTcwNTJENDM2Qk", "AAAAAAAAAAAAAAAAAAAA+/", "AAAAAAAAAAAAAAAAAAAAA+", "AAAAAAAAAAAAAAAAAAAAA/",
    Z + "==", Z + "=", Z + "===", Z + "=A", Z + "A=", "A" * 20 + "==", "A" * 21 + "=", "A" * 23 + "=",
    "A" * 20 + "A===", "AAAA==AAAAAAAAAAAAAAAAAA", "=" + "A" * 21, "=" * 22, "==", "=",
    " " + "A" * 21, Z + " ", Z + "\n", "A" * 21 + "\n", "A" * 11 + "\t" + "A" * 10, "A" * 21 + "\u00e9",
    "A" * 21 + "\u20ac", "A" * 21 + "\U0001F600", "A" * 20 + "\U0001F600", "A" * 21 + "\x00",
    "AAAAAAAAAAAAAAAAAAAAA.", "AAAAAAAAAAAAAAAAAAAAA~", "A" * 20 + "-_", Z.lower(), "0" * 22, "9" * 22,
]
ALPHABET = "AQwz09-_+/=! "


def main() -> None:
    rng = random.Random(35)
    randoms = ["".join(rng.choice(ALPHABET) for _ in range(rng.choice((20, 21, 22, 22, 22, 23, 24, 24, 25))))
               for _ in range(400)]
    url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    wellformed = ["".join(rng.choice(url) for _ in range(22)) + ("==" if i % 3 == 0 else "") for i in range(60)]
    with open("candidates.txt", "w") as out:
        out.writelines(text.encode().hex() + "\n" for text in dict.fromkeys(HAND + randoms + wellformed))


if __name__ == "__main__":
    main()
