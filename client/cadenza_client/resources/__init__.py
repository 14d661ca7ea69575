"""The API's routes, grouped by resource; each module holds the classes of one area."""
