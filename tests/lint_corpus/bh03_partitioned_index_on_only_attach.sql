-- expect: safe
-- doc: https://www.postgresql.org/docs/current/ddl-partitioning.html#DDL-PARTITIONING-DECLARATIVE-MAINTENANCE (CREATE INDEX ON ONLY the parent, CONCURRENTLY on each partition, ALTER INDEX ... ATTACH PARTITION)
-- verified: PG15: ON ONLY creates an invalid parent index instantly; each CIC outside a block; after both ATTACH PARTITION the parent index is valid (pg_index.indisvalid = t); no table relfilenode changed
-- given: CREATE TABLE measurement (city_id int NOT NULL, logdate date NOT NULL, peaktemp int) PARTITION BY RANGE (logdate);
-- given: CREATE TABLE measurement_y2025 PARTITION OF measurement FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE measurement_y2026 PARTITION OF measurement FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE INDEX measurement_city_idx ON ONLY measurement (city_id);
CREATE INDEX CONCURRENTLY measurement_y2025_city_idx ON measurement_y2025 (city_id);
ALTER INDEX measurement_city_idx ATTACH PARTITION measurement_y2025_city_idx;
CREATE INDEX CONCURRENTLY measurement_y2026_city_idx ON measurement_y2026 (city_id);
ALTER INDEX measurement_city_idx ATTACH PARTITION measurement_y2026_city_idx;
