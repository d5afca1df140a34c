-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ADD FOREIGN KEY without NOT VALID validates every row while holding SHARE ROW EXCLUSIVE on the referencing table and the referenced table; the referenced side here is a partitioned table, PG12+)
-- verified: PG15+16: seq_scan +1 on refunds (validation query); inside a block pg_locks showed ShareRowExclusiveLock on refunds and on payments and its partitions
-- given: CREATE TABLE payments (id bigint NOT NULL, paid_on date NOT NULL, PRIMARY KEY (id, paid_on)) PARTITION BY RANGE (paid_on);
-- given: CREATE TABLE payments_2025 PARTITION OF payments FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE refunds (id bigint PRIMARY KEY, payment_id bigint NOT NULL, payment_paid_on date NOT NULL, amount_cents bigint);
ALTER TABLE refunds ADD CONSTRAINT refunds_payment_fk FOREIGN KEY (payment_id, payment_paid_on) REFERENCES payments (id, paid_on);
