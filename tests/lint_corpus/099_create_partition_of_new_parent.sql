-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html; tables created in this migration
-- given: CREATE TABLE measurements (id bigint, logdate date NOT NULL, v int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurements_2025 PARTITION OF measurements FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurements_old (id bigint, logdate date NOT NULL, v int);
CREATE TABLE metrics (id bigint, at date NOT NULL) PARTITION BY RANGE (at);
CREATE TABLE metrics_2025 PARTITION OF metrics FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
CREATE INDEX metrics_at_idx ON metrics (at);
