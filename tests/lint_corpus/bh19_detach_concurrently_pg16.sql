-- expect: safe
-- doc: https://www.postgresql.org/docs/16/sql-altertable.html (DETACH PARTITION ... CONCURRENTLY: SHARE UPDATE EXCLUSIVE on the parent; not allowed with a default partition, none here)
-- pg-version: 16
-- verified: PG16 (port 55502): ran outside a block; succeeded; logs_2023 is a standalone table afterwards
-- given: CREATE TABLE logs (id bigint NOT NULL, at date NOT NULL, line text) PARTITION BY RANGE (at);
-- given: CREATE TABLE logs_2023 PARTITION OF logs FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
-- given: CREATE TABLE logs_2024 PARTITION OF logs FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
ALTER TABLE logs DETACH PARTITION logs_2023 CONCURRENTLY;
