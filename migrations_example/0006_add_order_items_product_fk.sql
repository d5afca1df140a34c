-- Adding a foreign key NOT VALID takes its locks for a moment only; VALIDATE then scans
-- order_items under SHARE UPDATE EXCLUSIVE, which does not block reads or writes.
ALTER TABLE order_items
    ADD CONSTRAINT order_items_product_id_fkey
    FOREIGN KEY (product_id) REFERENCES products (id) NOT VALID;

ALTER TABLE order_items VALIDATE CONSTRAINT order_items_product_id_fkey;
