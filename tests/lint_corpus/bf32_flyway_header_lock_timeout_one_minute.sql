-- expect: unsafe timeout-guard-off
-- doc: https://www.postgresql.org/docs/current/runtime-config-client.html#GUC-LOCK-TIMEOUT; the rule's lock_timeout ceiling is 10s by default and 1min is above it
-- verified: PG15: all statements succeed; SHOW lock_timeout = 1min after the SET; warehouses relfilenode unchanged (the ALTER itself is catalog-only)
-- given: CREATE TABLE warehouses (id int PRIMARY KEY, code text NOT NULL, city text);
-- V7__warehouse_timezone.sql
SET lock_timeout = '1min';
SET statement_timeout = '5min';
ALTER TABLE warehouses ADD COLUMN tz text NOT NULL DEFAULT 'UTC';
