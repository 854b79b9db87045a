"""The village kernel: an event-sourced village whose days replay byte-for-byte."""
