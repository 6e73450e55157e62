"""Chinese tokenizers keep every training character as a piece; a corpus with more characters than the
vocabulary can hold keeps the most frequent ones instead of failing."""

from engine.text.tokenizer import BYTE_PIECES, TokenizerSettings, coverage_that_fits, train_tokenizer

HAN = [chr(0x4E00 + i) for i in range(600)]


def corpus(distinct: int) -> list[str]:
    """Sentences in which character i occurs about 5000 / (i + 1)² times (at least once): a steep
    frequency ranking, as of the characters of real Chinese text."""
    sentences = []
    for i in range(distinct):
        sentences += [HAN[i] * 2] * max(1, 5000 // (i + 1) ** 2)
    return sentences


def test_every_training_character_is_its_own_piece_with_no_byte_fallback():
    sentences = corpus(300) + ["我妹妹喜欢吃饺子,贡献很大。"] * 5
    tokenizer = train_tokenizer(sentences, TokenizerSettings.for_language("zh", 800))
    assert TokenizerSettings.for_language("zh", 800).character_coverage == 1.0
    for character in "饺贡" + "".join(HAN[:300]):
        assert not any(piece.startswith("<0x") for piece in tokenizer.pieces(tokenizer.encode(character))), character


def test_more_characters_than_the_vocabulary_holds_keeps_the_most_frequent_ones():
    sentences = corpus(600)
    settings = TokenizerSettings.for_language("zh", 700)
    room = 700 - 4 - BYTE_PIECES - 70
    coverage = coverage_that_fits(sentences, settings)
    assert 0.98 <= coverage < 1.0
    tokenizer = train_tokenizer(sentences, settings)  # full coverage would fail: 600 characters, room for 370
    assert not any(p.startswith("<0x") for p in tokenizer.pieces(tokenizer.encode(HAN[0])))  # the most frequent: a piece
    assert any(p.startswith("<0x") for p in tokenizer.pieces(tokenizer.encode(HAN[599])))  # the rarest: byte pieces
    assert room == 370
    assert coverage_that_fits(corpus(100), settings) == 1.0
