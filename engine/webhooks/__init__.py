"""Delivery of events to the tenants' webhooks."""
