"""The Lesson: chapters as data (resources/lessons/), the panel that shows them, Show me and Try it."""
