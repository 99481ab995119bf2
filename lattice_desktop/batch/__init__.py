"""Grading a whole field: many submissions × case entries spread over worker processes.

The batch logic here is plain Python and knows neither Qt nor dask; `dask_backend` is the
one module that speaks to a `distributed` cluster, and is imported only when one is used.
"""
