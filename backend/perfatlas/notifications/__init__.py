"""Notifications: channels (webhook, email), the outbox written with each state change, and
its delivery by the worker."""
