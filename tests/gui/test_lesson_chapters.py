"""The lesson's chapters as data (gui/lesson/chapter.py, schema.py, checks.py): every shipped chapter
reads in both languages with the same actions and checks, a damaged file or a wrong name is refused in
one line while the other chapters load, and the Try it checks are met in order, when done and not before."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gui.attention.color_scale import COLOR_SCALES
from gui.lesson.chapter import load_chapters, parse_chapter
from gui.lesson.checks import TryProgress, same_word
from gui.lesson.language import lesson_language
from gui.lesson.schema import ACTIONS, SCALES, SPEED_POSITIONS
from gui.translate.controls import SPEED_STEPS

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "resources" / "lessons"
ISSUE_CHAPTERS = 8  # the encoder–decoder … train your own (the chapters the lesson must have at least)


def chapter_text(front: str, body: str = "Some text.") -> str:
    return f"+++\n{front}\n+++\n{body}\n"


def test_every_shipped_chapter_reads_in_english_and_chinese_with_the_same_actions_and_checks():
    english, chinese = load_chapters(LESSONS, "en"), load_chapters(LESSONS, "zh_CN")
    assert len(english) >= ISSUE_CHAPTERS
    assert [c.key for c in english] == [c.key for c in chinese]
    for en, zh in zip(english, chinese, strict=True):
        assert not en.problem and not zh.problem, (en.key, en.problem, zh.problem)
        assert zh.language == "zh_CN", f"{en.key} has no Chinese file"
        assert en.show and en.tries, f"{en.key}: a chapter shows something and asks something"
        assert en.show == zh.show and en.models == zh.models, en.key
        assert [(c.name, c.params) for c in en.tries] == [(c.name, c.params) for c in zh.tries], en.key
        assert re.search(r"[\u4e00-\u9fff]", zh.title + zh.body), f"{zh.key}: its Chinese file is not in Chinese"


def test_a_chapters_text_is_short():
    for chapter in load_chapters(LESSONS, "en"):
        words = re.sub(r"<[^>]+>", "", chapter.body).split()
        assert len(words) <= 220, f"{chapter.key}: {len(words)} words"
    for chapter in load_chapters(LESSONS, "zh_CN"):
        assert len(re.sub(r"<[^>]+>|\s", "", chapter.body)) <= 600, chapter.key


def test_the_schemas_vocabularies_are_the_apps():
    assert tuple(COLOR_SCALES) == SCALES
    assert SPEED_POSITIONS == SPEED_STEPS


def test_a_chapter_reads_its_front_matter_and_its_models():
    chapter = parse_chapter(chapter_text(
        'title = "T"\nmodels = ["zh-en-dot"]\n[[show]]\ndo = "select_model"\ndirection = "zh-en"\nscorer = "none"\n'
        '[[try]]\ncheck = "step_selected"\ntoken = "garden"\nsay = "Pick it."'), "09-x", "en")
    assert not chapter.problem
    assert chapter.models == ("zh-en-dot", "zh-en-none")
    assert chapter.tries[0].say == "Pick it." and chapter.tries[0].params == {"token": "garden"}
    assert chapter.body == "Some text."


@pytest.mark.parametrize(("front", "said"), [
    ('title = "T"\n[[show]]\ndo = "fly"', "unknown action 'fly': choose one of"),
    ('title = "T"\n[[show]]\ndo = "set_beam"\nsize = 40', "size must be between 1 and 10"),
    ('title = "T"\n[[show]]\ndo = "set_beam"', "needs 'size'"),
    ('title = "T"\n[[show]]\ndo = "word_view"\non = true\ncolour = 1', "takes no 'colour'"),
    ('title = "T"\n[[show]]\ndo = "color_scale"\nscale = "log"', "one of unit, row, auto"),
    ('title = "T"\n[[try]]\ncheck = "travelled"', "needs say"),
    ('title = "T"\n[[try]]\ncheck = "won"\nsay = "x"', "unknown check 'won'"),
    ('[[show]]\ndo = "open_length_study"', "needs a title"),
    ('title = "T"\ncolour = "red"', "unknown front matter key 'colour'"),
    ('title = "T\n', "not valid TOML"),
])
def test_a_wrong_chapter_is_refused_in_one_line_that_names_the_valid_choices(front, said):
    chapter = parse_chapter(chapter_text(front), "09-bad", "en")
    assert said in chapter.problem and "\n" not in chapter.problem


def test_a_damaged_file_leaves_the_other_chapters_working(tmp_path):
    (tmp_path / "en").mkdir()
    (tmp_path / "zh_CN").mkdir()
    good = chapter_text('title = "Good"\n[[show]]\ndo = "open_length_study"')
    (tmp_path / "en" / "01-good.md").write_text(good, encoding="utf-8")
    (tmp_path / "en" / "02-cut.md").write_text("+++\ntitle = \"Cut", encoding="utf-8")
    (tmp_path / "en" / "03-binary.md").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "en" / "04-folder.md").mkdir()
    (tmp_path / "en" / "notes.txt").write_text("not a chapter", encoding="utf-8")
    (tmp_path / "zh_CN" / "01-good.md").write_text(good.replace("Good", "好"), encoding="utf-8")
    chapters = load_chapters(tmp_path, "zh_CN")
    assert [c.key for c in chapters] == ["01-good", "02-cut", "03-binary", "04-folder"]
    assert chapters[0].title == "好" and chapters[0].language == "zh_CN" and not chapters[0].problem
    assert "closing +++" in chapters[1].problem and chapters[1].language == "en"  # no Chinese file: English
    assert "cannot be read" in chapters[2].problem
    assert "not a regular file" in chapters[3].problem


def test_the_chapter_language_follows_the_interfaces():
    assert lesson_language("zh_CN") == lesson_language("zh_TW") == "zh_CN"
    assert lesson_language("en_GB") == lesson_language("de_DE") == lesson_language("en") == "en"


def test_try_it_is_met_in_order_when_done_and_not_before():
    chapter = parse_chapter(chapter_text(
        'title = "T"\n[[try]]\ncheck = "step_selected"\ntoken = "garden"\nsay = "a"\n'
        '[[try]]\ncheck = "cell_clicked"\ntoken = "garden"\ncolumn = "max"\nsay = "b"'), "03-x", "en")
    trying = TryProgress(chapter.tries)
    assert not trying.observe("cell_clicked", {"word": "garden", "source": "花园", "is_max": True})  # not yet
    assert not trying.observe("step_selected", {"word": "book"})
    assert trying.observe("step_selected", {"word": "▁Garden"}) and trying.met == 1 and not trying.done
    assert not trying.observe("cell_clicked", {"word": "garden", "source": "我在", "is_max": False})
    assert not trying.observe("cell_clicked", {"word": "book", "source": "书", "is_max": True})
    assert trying.observe("cell_clicked", {"word": "garden", "source": "花园", "is_max": True}) and trying.done
    trying.reset()
    assert trying.met == 0 and not trying.done


@pytest.mark.parametrize(("check", "kind", "data", "met"), [
    ('check = "translated"\nscorer = "none"\nmin_tokens = 12', "translated",
     {"scorer": "none", "direction": "zh-en", "source_tokens": 12, "steered": False}, True),
    ('check = "translated"\nscorer = "none"\nmin_tokens = 12', "translated",
     {"scorer": "none", "direction": "zh-en", "source_tokens": 11, "steered": False}, False),
    ('check = "translated"\nscorer = "none"', "translated",
     {"scorer": "additive", "direction": "zh-en", "source_tokens": 30, "steered": False}, False),
    ('check = "steered"\ncontains = "look"', "translated", {"words": ["I", "look"], "steered": True}, True),
    ('check = "steered"\ncontains = "look"', "translated", {"words": ["I", "look"], "steered": False}, False),
    ('check = "compared"\nshared_target = true', "compared", {"shared_target": False}, False),
    ('check = "compared"\nshared_target = true', "compared", {"shared_target": True}, True),
    ('check = "speed_at_least"\nposition = 5', "speed", {"position": 4}, False),
    ('check = "speed_at_least"\nposition = 5', "speed", {"position": 6}, True),
    ('check = "tab_shown"\ntab = "compare"', "tab_shown", {"tab": "train"}, False),
    ('check = "word_view"\non = false', "word_view", {"on": False}, True),
    ('check = "training_validated"', "validated", {}, True),
    ('check = "cell_clicked"\ntoken = "garden"\ncolumn = "花园"', "cell_clicked",
     {"word": "garden", "source": "花园", "is_max": False}, True),
])
def test_each_check_is_met_by_its_event_only(check, kind, data, met):
    chapter = parse_chapter(chapter_text(f'title = "T"\n[[try]]\n{check}\nsay = "x"'), "01-x", "en")
    assert not chapter.problem
    assert TryProgress(chapter.tries).observe(kind, data) is met


def test_words_are_compared_as_a_learner_reads_them():
    assert same_word("garden", "▁garden") and same_word("Look", "look.") and not same_word("", "")
    assert not same_word("garden", "gardens")
    assert set(ACTIONS) >= {"select_model", "translate", "select_step", "open_length_study", "compare", "highlight"}


def test_the_readmes_example_chapter_is_a_valid_chapter():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Write a chapter", 1)[1]
    example = section.split("```", 2)[1].strip("\n")
    chapter = parse_chapter(example, "09-example", "en")
    assert not chapter.problem and chapter.models == ("zh-en-additive",) and chapter.tries
