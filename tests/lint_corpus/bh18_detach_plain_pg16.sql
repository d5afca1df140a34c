-- expect: unsafe detach-partition
-- doc: https://www.postgresql.org/docs/16/sql-altertable.html (DETACH PARTITION without CONCURRENTLY takes ACCESS EXCLUSIVE on the parent)
-- pg-version: 16
-- verified: PG16 (pixeltable pginstall, port 55502): inside BEGIN, AccessExclusiveLock on logs (parent) and logs_2023
-- given: CREATE TABLE logs (id bigint NOT NULL, at date NOT NULL, line text) PARTITION BY RANGE (at);
-- given: CREATE TABLE logs_2023 PARTITION OF logs FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
-- given: CREATE TABLE logs_2024 PARTITION OF logs FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
ALTER TABLE logs DETACH PARTITION logs_2023;
