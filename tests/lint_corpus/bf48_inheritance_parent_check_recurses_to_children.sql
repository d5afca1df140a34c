-- expect: unsafe constraint-without-not-valid
-- doc: https://www.postgresql.org/docs/current/ddl-inherit.html (CHECK constraints are inherited by child tables); https://www.postgresql.org/docs/current/sql-altertable.html (ADD CHECK without NOT VALID scans the table, and recurses to children unless ONLY)
-- verified: PG15: inside a transaction AccessExclusiveLock on measurements, measurements_2025 and measurements_2026; a violating row inserted into measurements_2025 beforehand makes the ALTER fail ("is violated by some row"), so the child is scanned
-- given: CREATE TABLE measurements (station_id int NOT NULL, taken_at timestamptz NOT NULL, celsius numeric(5,2));
-- given: CREATE TABLE measurements_2025 () INHERITS (measurements);
-- given: CREATE TABLE measurements_2026 () INHERITS (measurements);
-- legacy inheritance-based partitioning; parent itself holds no rows
ALTER TABLE measurements ADD CONSTRAINT measurements_celsius_range CHECK (celsius BETWEEN -90 AND 60);
