-- expect: unsafe unbounded-data-change
-- doc: https://www.postgresql.org/docs/current/sql-update.html (FROM without WHERE: every target row joined is updated; row locks held until commit)
-- verified: PG15: every row of line_items updated (UPDATE count = table size)
-- given: CREATE TABLE products (id bigint PRIMARY KEY, vat_rate numeric(4,2) NOT NULL);
-- given: CREATE TABLE line_items (id bigint PRIMARY KEY, product_id bigint NOT NULL, vat_rate numeric(4,2));
-- given: INSERT INTO products VALUES (1, 19.00);
-- given: INSERT INTO line_items VALUES (1, 1, NULL), (2, 1, NULL);
UPDATE line_items AS li
   SET vat_rate = p.vat_rate
  FROM products AS p;
