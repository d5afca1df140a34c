-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: binary coercible change, no rewrite); tablecmds.c ATColumnChangeRequiresRewrite, numeric_support (numeric(p,s) -> numeric(p'>=p,s))
-- verified: PG15+16: no partition or index got a new relfilenode, no seq scan (the altered columns are in no index)
-- given: CREATE TABLE invoices (id bigint NOT NULL, issued_on date NOT NULL, memo varchar(100), total numeric(10,2), PRIMARY KEY (id, issued_on)) PARTITION BY RANGE (issued_on);
-- given: CREATE TABLE invoices_2025 PARTITION OF invoices FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
-- given: CREATE TABLE invoices_default PARTITION OF invoices DEFAULT;
ALTER TABLE invoices ALTER COLUMN memo TYPE varchar(500), ALTER COLUMN total TYPE numeric(14,2);
