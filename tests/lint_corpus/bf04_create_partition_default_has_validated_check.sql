-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (ATTACH PARTITION: a valid CHECK on the default partition that excludes the new range avoids the scan); partbounds.c check_default_partition_contents -> PartConstraintImpliedByRelConstraint
-- verified: PG15 with client_min_messages=debug1: "updated partition constraint for default partition "audit_log_default" is implied by existing constraints" (no scan); the CHECK is convalidated=true in the given history
-- given: CREATE TABLE audit_log (id bigint NOT NULL, logged_at timestamptz NOT NULL, actor text, action text) PARTITION BY RANGE (logged_at);
-- given: CREATE TABLE audit_log_2026_11 PARTITION OF audit_log FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
-- given: CREATE TABLE audit_log_default PARTITION OF audit_log DEFAULT;
-- given: ALTER TABLE audit_log_default ADD CONSTRAINT audit_log_default_before_2026_11 CHECK (logged_at < '2026-11-01 00:00:00+00') NOT VALID;
-- given: ALTER TABLE audit_log_default VALIDATE CONSTRAINT audit_log_default_before_2026_11;
-- The default partition only holds legacy rows (validated CHECK above), so the new
-- partition's range is proven absent from it without a scan.
CREATE TABLE public.audit_log_2026_12
    PARTITION OF public.audit_log
    FOR VALUES FROM ('2026-12-01 00:00:00+00') TO ('2027-01-01 00:00:00+00');
CREATE INDEX audit_log_2026_12_logged_at_idx ON public.audit_log_2026_12 (logged_at);
