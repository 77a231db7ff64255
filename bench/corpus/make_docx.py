"""Writes lab_handbook.docx (the DOCX of the offline-answer corpus) with python-docx: headings, a list, a
table and prose. Run once; the file is committed (``python bench/corpus/make_docx.py``)."""

from pathlib import Path

import docx

d = docx.Document()
d.core_properties.title = "Vision Lab Handbook"
d.add_heading("Vision Lab Handbook", level=0)
d.add_paragraph(
    "The Vision Lab was founded in 2011 by Prof. Elena Marchetti to study how the retina adapts to low "
    "light. The lab has twelve members and shares its instruments with two neighbouring groups."
)
d.add_heading("Your first week", level=1)
for step in (
    "Collect your badge from the faculty office on the ground floor.",
    "Complete the laser safety course before touching any optical bench.",
    "Ask the lab manager, Jonas Weber, for an account on the lab NAS.",
):
    d.add_paragraph(step, style="List Number")
d.add_heading("Booking instruments", level=1)
d.add_paragraph(
    "Instruments are booked in the shared calendar. Each has a maximum slot and a contact person."
)
table = d.add_table(rows=1, cols=4)
for cell, text in zip(
    table.rows[0].cells, ("Instrument", "Location", "Maximum slot", "Contact"), strict=True
):
    cell.text = text
for row in (
    ("Confocal microscope", "Room B214", "4 hours", "Amira Haddad"),
    ("Cryostat", "Room B102", "2 hours", "Tomas Lindqvist"),
    ("Spectrometer", "Room C310", "8 hours", "Priya Natarajan"),
):
    cells = table.add_row().cells
    for cell, text in zip(cells, row, strict=True):
        cell.text = text
d.add_heading("Data policy", level=1)
d.add_paragraph(
    "Raw images must be uploaded to the lab NAS within 48 hours, because the local disks of the "
    "microscope computers are wiped every Friday night. Processed data may stay on your laptop, "
    "but it must be encrypted."
)
d.add_paragraph(
    "Every dataset gets an identifier of the form VL-YYYY-NNN, for example VL-2023-014, which is written "
    "in the lab notebook next to the experiment."
)
d.add_heading("Safety", level=1)
d.add_paragraph(
    "The laser room is locked outside working hours. In an emergency call the campus security desk; "
    "never switch off the interlock of the class 4 laser yourself."
)
d.save(Path(__file__).with_name("lab_handbook.docx"))
