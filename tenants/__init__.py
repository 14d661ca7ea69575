"""Tenants, API keys, quotas and the tenant's key-value data: the lowest data layer."""
